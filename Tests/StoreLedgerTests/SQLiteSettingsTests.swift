import CSQLite
import Testing
@testable import StoreLedger

/// SQLite's process-wide settings, made before the first connection of the process opens.
@Suite("SQLiteDatabase: process-wide settings")
struct SQLiteSettingsTests {
    /// Memory statistics off: SQLite counts nothing (with them on, an open connection's memory is
    /// in the count), so no allocation of any connection waits on the statistics' one mutex.
    @Test func memoryStatisticsAreOff() throws {
        let db = try SQLiteDatabase(path: "file::memory:", create: true, uri: true)
        try db.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        #expect(sqlite3_memory_used() == 0)
        #expect(sqlite3_memory_highwater(0) == 0)
    }
}
