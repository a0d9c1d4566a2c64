#ifndef STOREFRONT_CLIBPQ_H
#define STOREFRONT_CLIBPQ_H
/// libpq, loaded when the first PostgreSQL connection opens (dlopen of libpq.so.5), not linked:
/// every other command, the paywall first, starts without libpq and the ~20 libraries it pulls
/// in (TLS, Kerberos, LDAP, SASL, …), which cost every process ~4.5 ms of CPU at start.
///
/// Debian's libpq-dev gives the header (in /usr/include/postgresql, which the quotes of its own
/// includes find); libpq_loader.c defines each libpq function the ledger calls, under libpq's own
/// name, as a call through the pointer dlsym found, so Swift calls libpq as if it were linked.
#include <postgresql/libpq-fe.h>
#include <poll.h>

/// Whether libpq.so.5 could be loaded with every function the ledger calls (it is, once, on the
/// first call). Call it before any other libpq function: they must not run without it.
int clibpq_available(void);
/// Why libpq could not be loaded (dlerror's words), or NULL when it was.
const char *clibpq_load_error(void);

/// PG_DIAG_SQLSTATE, a character literal in a macro: Swift does not import it.
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

/// Drops the server's notices on `connection` (libpq's default prints them to stderr:
/// "NOTICE: relation … already exists, skipping" in the middle of a test's or a command's output).
void clibpq_ignore_notices(PGconn *connection);
#endif
