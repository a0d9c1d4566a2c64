// libmicrohttpd for Swift: MHD_start_daemon is variadic, and MHD_get_daemon_info
// returns a union; both are wrapped here in functions Swift can call.
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// A daemon on `address` (IPv4 or IPv6), one thread per connection, an internal
/// polling thread, `handler` for every request and `completed` when one ends.
static inline struct MHD_Daemon *cmhd_start(const struct sockaddr *address, int ipv6,
                                            MHD_AccessHandlerCallback handler, void *context,
                                            MHD_RequestCompletedCallback completed) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
    if (ipv6) flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
                            MHD_OPTION_END);
}

/// The port the daemon listens on (the one the system chose for port 0).
static inline uint16_t cmhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// The request's headers, or its query arguments, one call of `iterator` each.
static inline int cmhd_headers(struct MHD_Connection *connection, MHD_KeyValueIterator iterator, void *context) {
    return MHD_get_connection_values(connection, MHD_HEADER_KIND, iterator, context);
}
static inline int cmhd_arguments(struct MHD_Connection *connection, MHD_KeyValueIterator iterator, void *context) {
    return MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, iterator, context);
}

/// A response whose body libmicrohttpd copies.
static inline struct MHD_Response *cmhd_response(size_t size, const void *body) {
    return MHD_create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
}

static inline enum MHD_Result cmhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result cmhd_no(void) { return MHD_NO; }
#endif
