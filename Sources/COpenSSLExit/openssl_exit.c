#include "openssl_exit.h"
#include <openssl/crypto.h>

static int started_without_atexit;

// Before main and before any library in the process can start libcrypto on its own: the first
// start decides whether OpenSSL registers its clean-up, and no later call can take it back.
__attribute__((constructor)) static void storefront_start_openssl_without_atexit(void) {
    started_without_atexit = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int storefront_openssl_started_without_atexit(void) {
    return started_without_atexit;
}
