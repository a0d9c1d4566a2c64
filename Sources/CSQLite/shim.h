#ifndef STOREFRONT_CSQLITE_SHIM_H
#define STOREFRONT_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <string.h>

/// Turns off SQLite's memory statistics, which take one process-wide mutex around every
/// allocation of every connection (sqlite3_config is variadic: it does not import into Swift).
/// Only before SQLite initializes; SQLITE_MISUSE after, changing nothing.
static inline int csqlite_memory_statistics_off(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

/// SQLITE_TRANSIENT does not import into Swift: it is a cast of -1 to a function pointer.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Counts this connection's inserts, updates and deletes of rows of the table `transactions`
/// in `*counter`, which must outlive the connection: what caches of its reads are keyed by.
static void csqlite_count_transaction_changes(void *counter, int operation, const char *database, const char *table,
                                              sqlite3_int64 rowid) {
    (void)operation; (void)database; (void)rowid;
    if (table[0] == 't' && strcmp(table, "transactions") == 0) { ++*(long long *)counter; }
}
/// A rollback may undo changes counted already, or reads made inside the transaction: counted too.
static void csqlite_count_rollback(void *counter) { ++*(long long *)counter; }
static inline void csqlite_count_changes_to_transactions(sqlite3 *db, long long *counter) {
    sqlite3_update_hook(db, csqlite_count_transaction_changes, counter);
    sqlite3_rollback_hook(db, csqlite_count_rollback, counter);
}

/// A busy handler like busy_timeout's, but looking again every 100 µs for the first 2 ms before
/// backing off to every 2 ms: SQLite's own first waits 1 ms, then 2, then 5, so a process
/// that found the lock taken by a commit of a fraction of a millisecond waited a whole one.
/// `context` holds the limit in milliseconds.
#include <unistd.h>
static int csqlite_busy(void *context, int count) {
    long long limit = *(long long *)context;
    long long waited_us = count < 20 ? count * 100LL : 2000LL + (count - 20) * 2000LL;
    if (waited_us >= limit * 1000) { return 0; }
    usleep(count < 20 ? 100 : 2000);
    return 1;
}
static inline void csqlite_busy_timeout(sqlite3 *db, long long *limit_ms) { sqlite3_busy_handler(db, csqlite_busy, limit_ms); }

/// The main database file as this connection has it open: its first `count` bytes and its size,
/// read through SQLite's own handle (a handle of ours, closed, would drop every POSIX lock this
/// process holds on the file), and whether its path names another file now (SQLITE_FCNTL_HAS_MOVED:
/// deleted, or renamed over).
static inline int csqlite_main_file(sqlite3 *db, unsigned char *header, int count, sqlite3_int64 *size, int *moved) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file || !file->pMethods) {
        return SQLITE_ERROR;
    }
    *moved = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_HAS_MOVED, moved) != SQLITE_OK) { *moved = 0; }
    int status = file->pMethods->xFileSize(file, size);
    if (status != SQLITE_OK) { return status; }
    return file->pMethods->xRead(file, header, count, 0);  /* SQLITE_IOERR_SHORT_READ: shorter, zero-filled */
}
/// Leaves the log beside the file at close, unwritten (SQLite's last connection otherwise writes it
/// back into the file): a file overwritten in place must not get the old file's pages.
static inline void csqlite_no_checkpoint_on_close(sqlite3 *db) { sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0); }
#endif
