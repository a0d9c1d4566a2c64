// libmicrohttpd through dlopen (see shim.h): each function's type is the header's own.
#include "shim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static struct {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_get_connection_values) *get_connection_values;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
} mhd;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
#define FIND(field, name) if (!(*(void **)&mhd.field = dlsym(library, name))) return;
    FIND(start_daemon, "MHD_start_daemon")
    FIND(stop_daemon, "MHD_stop_daemon")
    FIND(get_daemon_info, "MHD_get_daemon_info")
    FIND(get_connection_values, "MHD_get_connection_values")
    FIND(create_response_from_buffer, "MHD_create_response_from_buffer")
    FIND(add_response_header, "MHD_add_response_header")
    FIND(queue_response, "MHD_queue_response")
    FIND(destroy_response, "MHD_destroy_response")
#undef FIND
    loaded = 1;
}

int cmhd_available(void) {
    pthread_once(&once, load);
    return loaded;
}

// libmicrohttpd's own messages, formatted and handed to the server's log (never its stderr).
static void (*log_line)(void *context, const char *line);

static void forward_log(void *context, const char *format, va_list arguments) {
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = 0;
    if (log_line && length > 0) log_line(context, line);
}

struct MHD_Daemon *cmhd_start(const struct sockaddr *address, int ipv6,
                              MHD_AccessHandlerCallback handler, void *context,
                              MHD_RequestCompletedCallback completed,
                              void (*log)(void *context, const char *line)) {
    if (!cmhd_available()) return NULL;
    log_line = log;
    // poll(), not select(): select refuses a socket numbered 1024 or more, and a process with many
    // files open (a test run, a server beside many stores) gets such numbers for its listen socket.
    unsigned int flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
    if (ipv6) flags |= MHD_USE_IPv6;
    return mhd.start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_EXTERNAL_LOGGER, forward_log, context,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
                            MHD_OPTION_END);
}

// A daemon exists only once the library was loaded: the functions below need no check.
void cmhd_stop(struct MHD_Daemon *daemon) { mhd.stop_daemon(daemon); }

uint16_t cmhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = mhd.get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

int cmhd_headers(struct MHD_Connection *connection, MHD_KeyValueIterator iterator, void *context) {
    return mhd.get_connection_values(connection, MHD_HEADER_KIND, iterator, context);
}

int cmhd_arguments(struct MHD_Connection *connection, MHD_KeyValueIterator iterator, void *context) {
    return mhd.get_connection_values(connection, MHD_GET_ARGUMENT_KIND, iterator, context);
}

struct MHD_Response *cmhd_response(size_t size, const void *body) {
    return mhd.create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
}

enum MHD_Result cmhd_add_header(struct MHD_Response *response, const char *name, const char *value) {
    return mhd.add_response_header(response, name, value);
}

enum MHD_Result cmhd_queue(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    return mhd.queue_response(connection, status, response);
}

void cmhd_destroy_response(struct MHD_Response *response) { mhd.destroy_response(response); }
