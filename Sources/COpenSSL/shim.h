#ifndef STOREFRONT_COPENSSL_SHIM_H
#define STOREFRONT_COPENSSL_SHIM_H
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

// Macros Swift cannot import, as functions.
static inline void cossl_free(void *pointer) { OPENSSL_free(pointer); }
static inline long cossl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline int cossl_mbstring_asc(void) { return MBSTRING_ASC; }

// A PKCS#8 PEM private key of one type ("EC"): OpenSSL's decoders for that type and structure
// alone. PEM_read_bio_PrivateKey builds a chain of every decoder it has first, about 1.4 ms of a
// CLI command's start on this machine; this one about 0.5. NULL when the text is not such a key.
static inline EVP_PKEY *cossl_read_private_key_pem(const char *pem, size_t length, const char *type) {
    EVP_PKEY *key = NULL;
    OSSL_DECODER_CTX *context = OSSL_DECODER_CTX_new_for_pkey(&key, "PEM", "PrivateKeyInfo", type,
                                                              OSSL_KEYMGMT_SELECT_KEYPAIR, NULL, NULL);
    if (context == NULL) return NULL;
    const unsigned char *data = (const unsigned char *)pem;
    size_t left = length;
    int decoded = OSSL_DECODER_from_data(context, &data, &left);
    OSSL_DECODER_CTX_free(context);
    if (decoded != 1) { EVP_PKEY_free(key); return NULL; }
    return key;
}

// STACK_OF(X509): the untrusted certificates of a chain to verify.
static inline STACK_OF(X509) *cossl_x509_stack_new(void) { return sk_X509_new_null(); }
static inline int cossl_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
static inline void cossl_x509_stack_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

// STACK_OF(ASN1_TYPE): the SET and SEQUENCE of an app receipt's attributes (ASN1_SET_ANY, ASN1_SEQUENCE_ANY).
static inline STACK_OF(ASN1_TYPE) *cossl_asn1_any_stack_new(void) { return sk_ASN1_TYPE_new_null(); }
static inline int cossl_asn1_any_stack_push(STACK_OF(ASN1_TYPE) *stack, ASN1_TYPE *value) { return sk_ASN1_TYPE_push(stack, value); }
static inline int cossl_asn1_any_stack_count(const STACK_OF(ASN1_TYPE) *stack) { return sk_ASN1_TYPE_num(stack); }
static inline ASN1_TYPE *cossl_asn1_any_stack_value(const STACK_OF(ASN1_TYPE) *stack, int index) { return sk_ASN1_TYPE_value(stack, index); }
static inline void cossl_asn1_any_stack_free(STACK_OF(ASN1_TYPE) *stack) { sk_ASN1_TYPE_pop_free(stack, ASN1_TYPE_free); }
#endif
