import CSQLite

/// Opens a database file with SQLite itself, as another program would, for a test to look
/// under the engine or edit the file behind its back.
///
/// SQLite's memory statistics go off first: the engine's setting (SQLiteSettingsTests), which
/// only the process's first connection can make, whoever opens it.
func openWithSQLite(_ path: String, _ db: inout OpaquePointer?,
                    flags: Int32 = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) -> Int32 {
    _ = csqlite_memory_statistics_off()
    return sqlite3_open_v2(path, &db, flags, nil)
}
