// libcurl through dlopen (see curl_loader.h). The option and info numbers are curl.h's: part
// of libcurl.so.4's ABI, which curl keeps stable; written here so the build needs no curl headers.
#include "curl_loader.h"
#include <dlfcn.h>
#include <pthread.h>

enum {
    OPT_URL = 10002, OPT_POSTFIELDS = 10015, OPT_HTTPHEADER = 10023, OPT_WRITEFUNCTION = 20011,
    OPT_POSTFIELDSIZE_LARGE = 30120, OPT_FOLLOWLOCATION = 52, OPT_MAXREDIRS = 68, OPT_NOSIGNAL = 99,
    OPT_TIMEOUT_MS = 155, OPT_PROTOCOLS = 181, OPT_REDIR_PROTOCOLS = 182,
    INFO_RESPONSE_CODE = 0x200002, PROTO_HTTP = 1, PROTO_HTTPS = 2, GLOBAL_DEFAULT = 3,
    E_FAILED_INIT = 2, E_OUT_OF_MEMORY = 27
};

struct slist;
static struct {
    int (*global_init)(long);
    void *(*easy_init)(void);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_perform)(void *);
    int (*easy_getinfo)(void *, int, ...);
    void (*easy_reset)(void *);
    void (*easy_cleanup)(void *);
    struct slist *(*slist_append)(struct slist *, const char *);
    void (*slist_free_all)(struct slist *);
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
    loaded = curl.global_init(GLOBAL_DEFAULT) == 0;
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

int storefront_curl_post_json(void *handle, const char *url, const char *body, size_t length,
                              long timeout_ms, long *status) {
    *status = 0;
    if (!handle) return E_FAILED_INIT;
    // Reset keeps the handle's connections: the next POST to the receiver reuses one.
    curl.easy_reset(handle);
    struct slist *headers = curl.slist_append(NULL, "Content-Type: application/json");
    if (!headers) return E_OUT_OF_MEMORY;
    curl.easy_setopt(handle, OPT_URL, url);
    curl.easy_setopt(handle, OPT_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    curl.easy_setopt(handle, OPT_REDIR_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    curl.easy_setopt(handle, OPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(handle, OPT_MAXREDIRS, 16L);
    curl.easy_setopt(handle, OPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, OPT_TIMEOUT_MS, timeout_ms);
    curl.easy_setopt(handle, OPT_HTTPHEADER, headers);
    curl.easy_setopt(handle, OPT_POSTFIELDS, body);
    curl.easy_setopt(handle, OPT_POSTFIELDSIZE_LARGE, (long long)length);
    curl.easy_setopt(handle, OPT_WRITEFUNCTION, discard);
    int result = curl.easy_perform(handle);
    if (result == 0) curl.easy_getinfo(handle, INFO_RESPONSE_CODE, status);
    curl.slist_free_all(headers);
    return result;
}
