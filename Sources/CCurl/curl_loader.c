// libcurl through dlopen (see curl_loader.h): curl.h gives the types and option names, the
// functions are looked up in libcurl.so.4 when the first notification is sent.
#include "curl_loader.h"
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

static struct {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_reset) *easy_reset;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
} curl;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
#define FIND(field, name) if (!(*(void **)&curl.field = dlsym(library, name))) return;
    FIND(global_init, "curl_global_init")
    FIND(easy_init, "curl_easy_init")
    FIND(easy_setopt, "curl_easy_setopt")
    FIND(easy_perform, "curl_easy_perform")
    FIND(easy_getinfo, "curl_easy_getinfo")
    FIND(easy_reset, "curl_easy_reset")
    FIND(easy_cleanup, "curl_easy_cleanup")
    FIND(slist_append, "curl_slist_append")
    FIND(slist_free_all, "curl_slist_free_all")
#undef FIND
    // Once, before any handle: curl's global setup is not safe to race.
    loaded = curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

int storefront_curl_available(void) {
    pthread_once(&once, load);
    return loaded;
}

void *storefront_curl_handle(void) {
    return storefront_curl_available() ? curl.easy_init() : NULL;
}

void storefront_curl_release(void *handle) {
    if (handle) curl.easy_cleanup(handle);
}

// The answer's body is not wanted: taken and dropped.
static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

/// Milliseconds on the monotonic clock, for one deadline over a POST and its redirects.
static long long monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int storefront_curl_post_json(void *handle, const char *url, const char *body, size_t length,
                              long timeout_ms, long *status) {
    *status = 0;
    if (!handle) return CURLE_FAILED_INIT;
    // Reset keeps the handle's connections: the next POST to the receiver reuses one.
    curl.easy_reset(handle);
    struct curl_slist *headers = curl.slist_append(NULL, "Content-Type: application/json");
    if (!headers) return CURLE_OUT_OF_MEMORY;
    curl.easy_setopt(handle, CURLOPT_URL, url);
    curl.easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    // Redirects are not curl's to follow: it would turn a 301, 302 or 303 into a GET without
    // the body, and the target's 200 would pass for a delivery. Only 307 and 308, which keep
    // the method and the body, are followed below; any other 3xx is the answer.
    curl.easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    curl.easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    curl.easy_setopt(handle, CURLOPT_POSTFIELDS, body);
    curl.easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, discard);
    long long deadline = monotonic_ms() + timeout_ms;
    char next[4096];
    CURLcode result = CURLE_OK;
    for (int hops = 0;; hops++) {
        long long left = deadline - monotonic_ms();
        if (left <= 0) { result = CURLE_OPERATION_TIMEDOUT; break; }
        curl.easy_setopt(handle, CURLOPT_TIMEOUT_MS, (long)left);
        result = curl.easy_perform(handle);
        if (result != CURLE_OK) break;
        curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, status);
        if (*status != 307 && *status != 308) break;
        char *location = NULL;
        curl.easy_getinfo(handle, CURLINFO_REDIRECT_URL, &location);
        if (!location) break;  // a 307 without a Location: the answer as it is
        if (hops == 16) { result = CURLE_TOO_MANY_REDIRECTS; *status = 0; break; }
        // Copied: curl's string lives only until the next transfer on the handle.
        size_t size = strlen(location);
        if (size >= sizeof next) { result = CURLE_URL_MALFORMAT; *status = 0; break; }
        memcpy(next, location, size + 1);
        curl.easy_setopt(handle, CURLOPT_URL, next);
    }
    curl.slist_free_all(headers);
    return (int)result;
}

storefront_curl_failure storefront_curl_failure_kind(int code) {
    switch ((CURLcode)code) {
    case CURLE_OPERATION_TIMEDOUT: return storefront_curl_timed_out;
    case CURLE_COULDNT_RESOLVE_PROXY: case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_CONNECT:
        return storefront_curl_no_response;
    case CURLE_PARTIAL_FILE: case CURLE_GOT_NOTHING: case CURLE_RECV_ERROR: return storefront_curl_premature_close;
    case CURLE_TOO_MANY_REDIRECTS: return storefront_curl_circular_redirect;
    case CURLE_SSL_CONNECT_ERROR: case CURLE_SSL_ENGINE_NOTFOUND: case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CERTPROBLEM: case CURLE_SSL_CIPHER: case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ENGINE_INITFAILED: case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE: case CURLE_SSL_ISSUER_ERROR: case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS: case CURLE_SSL_CLIENTCERT:
        return storefront_curl_tls_issue;
    case CURLE_WEIRD_SERVER_REPLY: return storefront_curl_invalid_response;
    default: return storefront_curl_socket_issue;
    }
}
