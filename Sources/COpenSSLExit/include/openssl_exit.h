#ifndef STOREFRONT_OPENSSL_EXIT_H
#define STOREFRONT_OPENSSL_EXIT_H

/// Whether libcrypto was started without its exit-time clean-up, before main (a constructor in
/// openssl_exit.c; at most once a process). Any process that links StoreSigning: a command, a
/// test, an app's tests on StorefrontKit.
///
/// OpenSSL frees its tables in an atexit handler. Work still running on another thread when the
/// process exits (a change feed's look at the store, sealing or verifying) then uses what was
/// freed: a crash after every test had passed. With the handler never registered, exit leaves
/// the tables alone and the kernel takes the memory back.
int storefront_openssl_started_without_atexit(void);

#endif
