#ifndef STOREFRONT_CURL_LOADER_H
#define STOREFRONT_CURL_LOADER_H
#include <stddef.h>

/// libcurl, loaded when `serve` first POSTs a notification (dlopen of libcurl.so.4), not
/// linked: every other command, the paywall first, starts without curl and the ~25 libraries
/// it pulls in (TLS, Kerberos, LDAP, …).

/// Whether libcurl.so.4 could be loaded (it is, once, on the first call).
int storefront_curl_available(void);
/// A new easy handle, or NULL (libcurl missing, or out of memory).
void *storefront_curl_handle(void);
void storefront_curl_release(void *handle);
/// POSTs `body` as application/json to `url` (http or https; a 307 or 308
/// followed with the body, at most 16 times, any other redirect the answer) within
/// `timeout_ms`. Returns curl's result code (0 when a response came), the HTTP status in `*status`.
int storefront_curl_post_json(void *handle, const char *url, const char *body, size_t length,
                              long timeout_ms, long *status);

/// How a POST that got no response failed, in the terms of Apple's `sendAttemptResult`.
typedef enum {
    storefront_curl_timed_out,
    storefront_curl_no_response,
    storefront_curl_premature_close,
    storefront_curl_circular_redirect,
    storefront_curl_tls_issue,
    storefront_curl_invalid_response,
    storefront_curl_socket_issue
} storefront_curl_failure;

/// The kind of failure of a nonzero result of `storefront_curl_post_json` (a CURLcode).
storefront_curl_failure storefront_curl_failure_kind(int code);

#endif
