#ifndef STOREFRONT_COPENSSL_SHIM_H
#define STOREFRONT_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

// Macros Swift cannot import, as functions.
static inline void cossl_free(void *pointer) { OPENSSL_free(pointer); }
static inline long cossl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
#endif
