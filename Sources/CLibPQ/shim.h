#ifndef STOREFRONT_CLIBPQ_SHIM_H
#define STOREFRONT_CLIBPQ_SHIM_H
/* Debian's libpq-dev: the header is in /usr/include/postgresql, which `pkg-config libpq` names. */
#include <libpq-fe.h>
#include <poll.h>

/// PG_DIAG_SQLSTATE, a character literal in a macro: Swift does not import it.
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

/// A notice processor that drops the server's notices (libpq's default prints them to stderr:
/// "NOTICE: relation … already exists, skipping" in the middle of a test's or a command's output).
static void clibpq_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void clibpq_ignore_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, clibpq_ignore_notice, 0);
}
#endif
