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
    __typeof__(MHD_get_connection_info) *get_connection_info;
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
    FIND(get_connection_info, "MHD_get_connection_info")
#undef FIND
    loaded = 1;
}

int cmhd_available(void) {
    pthread_once(&once, load);
    return loaded;
}

// libmicrohttpd's own messages, formatted and handed to the server's log (never its stderr).
static void (*log_line)(void *context, const char *line);

// Answers, on the socket it is given, a request whose Content-Length is no number (`-5`, `+2`, past 2^64).
static void (*refuse_length)(void *context, int socket);

// The connection this thread serves (one thread per connection), from its request line on.
static __thread struct MHD_Connection *this_connection;

// Called at each request line, on the connection's own thread: remembers the connection.
static void *note_connection(void *context, const char *uri, struct MHD_Connection *connection) {
    (void)context;
    (void)uri;
    this_connection = connection;
    return NULL;
}

// libmicrohttpd 0.9.75 answers a Content-Length that is no number with its own page, whose
// headers it then writes a second time (its state moves on past the error). Its message comes
// first, on the connection's thread: the server answers then, on the socket, and shuts it for
// writing, so the client gets one response and libmicrohttpd's writes fail and end the connection.
static void refuse_bad_length(void *context, const char *format) {
    if (!refuse_length || !this_connection || !strstr(format, "Content-Length")) return;
    if (!strstr(format, "Failed to parse") && !strstr(format, "Too large value")) return;
    const union MHD_ConnectionInfo *info = mhd.get_connection_info(this_connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info) refuse_length(context, info->connect_fd);
}

static void forward_log(void *context, const char *format, va_list arguments) {
    refuse_bad_length(context, format);
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = 0;
    if (log_line && length > 0) log_line(context, line);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Percent-decoding as libmicrohttpd's own, but `%00` is kept as its three characters: decoded, a
// NUL ends the C string the path is handed over as, and `/transactions/ID%00junk` would be read
// as `/transactions/ID`. Kept, the id is `ID%00junk`, which is no id.
static size_t unescape_keeping_nul(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    char *read = text, *write = text;
    while (*read) {
        if (read[0] == '%' && hex_value(read[1]) >= 0 && hex_value(read[2]) >= 0) {
            int value = hex_value(read[1]) * 16 + hex_value(read[2]);
            if (value != 0) {
                *write++ = (char)value;
                read += 3;
                continue;
            }
        }
        *write++ = *read++;
    }
    *write = 0;
    return (size_t)(write - text);
}

struct MHD_Daemon *cmhd_start(const struct sockaddr *address, int ipv6,
                              MHD_AccessHandlerCallback handler, void *context,
                              MHD_RequestCompletedCallback completed,
                              void (*log)(void *context, const char *line),
                              unsigned int connection_limit, unsigned int idle_seconds,
                              void (*bad_length)(void *context, int socket)) {
    if (!cmhd_available()) return NULL;
    log_line = log;
    refuse_length = bad_length;
    // poll(), not select(): select refuses a socket numbered 1024 or more, and a process with many
    // files open (a test run, a server beside many stores) gets such numbers for its listen socket.
    unsigned int flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
    if (ipv6) flags |= MHD_USE_IPv6;
    // The logger first: libmicrohttpd warns (through its default logger, on stderr) about any
    // option that comes before it.
    return mhd.start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_EXTERNAL_LOGGER, forward_log, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, idle_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
                            MHD_OPTION_UNESCAPE_CALLBACK, unescape_keeping_nul, NULL,
                            MHD_OPTION_URI_LOG_CALLBACK, note_connection, NULL,
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
