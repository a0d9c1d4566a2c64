// libmicrohttpd for Swift, loaded when `serve` starts (dlopen of libmicrohttpd.so.12), not
// linked: every other command, the paywall first, starts without it and the TLS libraries it
// pulls in (GnuTLS, p11-kit, nettle, GMP, …). The header gives the types and constants; calls go
// through the functions below (MHD_start_daemon is variadic, MHD_get_daemon_info returns a union).
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Whether libmicrohttpd.so.12 could be loaded (it is, once, on the first call).
int cmhd_available(void);

/// A daemon on `address` (IPv4 or IPv6), one thread per connection, an internal
/// polling thread, `handler` for every request and `completed` when one ends.
/// libmicrohttpd's own messages go to `log` (one line each), not to stderr.
/// At most `connection_limit` connections at once (more are closed as they come); one
/// silent for `idle_seconds` (headers that do not come, a kept-alive one unused) is closed.
/// A `%00` in the path or query stays `%00` (a decoded NUL would cut the text short).
/// `bad_length` answers, on the socket it is given, a request whose Content-Length is no
/// number, and shuts the socket for writing (libmicrohttpd 0.9.75's own answer repeats its headers).
/// NULL when it cannot listen there, or libmicrohttpd is missing.
struct MHD_Daemon *cmhd_start(const struct sockaddr *address, int ipv6,
                              MHD_AccessHandlerCallback handler, void *context,
                              MHD_RequestCompletedCallback completed,
                              void (*log)(void *context, const char *line),
                              unsigned int connection_limit, unsigned int idle_seconds,
                              void (*bad_length)(void *context, int socket));
void cmhd_stop(struct MHD_Daemon *daemon);

/// The port the daemon listens on (the one the system chose for port 0).
uint16_t cmhd_port(struct MHD_Daemon *daemon);

/// The request's headers, or its query arguments, one call of `iterator` each.
int cmhd_headers(struct MHD_Connection *connection, MHD_KeyValueIterator iterator, void *context);
int cmhd_arguments(struct MHD_Connection *connection, MHD_KeyValueIterator iterator, void *context);

/// A response whose body libmicrohttpd copies; its headers; queued; let go.
struct MHD_Response *cmhd_response(size_t size, const void *body);
enum MHD_Result cmhd_add_header(struct MHD_Response *response, const char *name, const char *value);
enum MHD_Result cmhd_queue(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response);
void cmhd_destroy_response(struct MHD_Response *response);

static inline enum MHD_Result cmhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result cmhd_no(void) { return MHD_NO; }
#endif
