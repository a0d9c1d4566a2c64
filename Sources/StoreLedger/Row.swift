import CSQLite

/// A result row, read by column name; valid only inside the query's row callback.
///
/// A SQLite row is read in place from its statement; a row of a backend that hands over whole
/// results (PostgreSQL) is read from its ``FetchedRows``.
package struct Row {
    private enum Source {
        /// A stepped statement and the cached statement's layout, which outlives every row of it.
        case sqlite(OpaquePointer, Unmanaged<ColumnLayout>)
        /// A row of a fetched result, by its index.
        case fetched(FetchedRows, Int32)
    }

    private let source: Source

    init(statement: OpaquePointer, layout: ColumnLayout) {
        source = .sqlite(statement, .passUnretained(layout))
    }

    init(_ rows: FetchedRows, index: Int32) {
        source = .fetched(rows, index)
    }

    /// Whether the result has a column named `column` (a read of an older file's columns).
    package func has(_ column: Column) -> Bool {
        switch source {
        case .sqlite(_, let layout): layout._withUnsafeGuaranteedRef { $0.contains(column) }
        case .fetched(let rows, _): rows.layout.contains(column)
        }
    }

    package func isNull(_ column: Column) -> Bool {
        switch source {
        case .sqlite(let statement, let layout):
            sqlite3_column_type(statement, layout._withUnsafeGuaranteedRef { $0.position(of: column) }) == SQLITE_NULL
        case .fetched(let rows, let index): rows.isNull(index, rows.layout.position(of: column))
        }
    }

    /// Whether the value is stored as an integer (SQLite's type of this value; PostgreSQL's of the column).
    func isInteger(_ column: Column) -> Bool {
        switch source {
        case .sqlite(let statement, let layout):
            sqlite3_column_type(statement, layout._withUnsafeGuaranteedRef { $0.position(of: column) }) == SQLITE_INTEGER
        case .fetched(let rows, _): rows.isInteger(rows.layout.position(of: column))
        }
    }

    package func int64(_ column: Column) -> Int64 {
        switch source {
        case .sqlite(let statement, let layout):
            sqlite3_column_int64(statement, layout._withUnsafeGuaranteedRef { $0.position(of: column) })
        case .fetched(let rows, let index): rows.int64(index, rows.layout.position(of: column))
        }
    }

    package func int(_ column: Column) -> Int { Int(int64(column)) }
    package func bool(_ column: Column) -> Bool { int64(column) != 0 }
    package func text(_ column: Column) -> String { withTextBytes(column, decoding: true) { String(decoding: $0, as: UTF8.self) } }
    package func optionalText(_ column: Column) -> String? { isNull(column) ? nil : text(column) }
    package func optionalInt64(_ column: Column) -> Int64? { isNull(column) ? nil : int64(column) }

    /// The column's text as UTF-8 bytes, as ``text(_:)`` decodes it, without making a String
    /// when it is ASCII (a JWS, an id, a date): what a seal hashes.
    func withTextBytes<R>(_ column: Column, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withTextBytes(column, decoding: false, body)
    }

    /// The bytes of the column's text; unless `decoding` (the caller decodes them itself), bytes
    /// that are not ASCII are handed over as decoded, so that bytes that are not UTF-8 hash as
    /// ``text(_:)`` reads them.
    private func withTextBytes<R>(_ column: Column, decoding: Bool, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let raw: UnsafeRawBufferPointer
        switch source {
        case .sqlite(let statement, let layout):
            let position = layout._withUnsafeGuaranteedRef { $0.position(of: column) }
            // By byte length, as bound: a NUL inside is kept, not an end.
            guard let bytes = sqlite3_column_text(statement, position) else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            raw = UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, position)))
        case .fetched(let rows, let index):
            raw = rows.bytes(index, rows.layout.position(of: column))
        }
        if decoding || raw.allSatisfy({ $0 < 0x80 }) { return body(raw) }
        var decoded = String(decoding: raw, as: UTF8.self)
        return decoded.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// The value of a result of one column, whatever SQL names it (``LedgerConnection/scalar(_:_:)``).
    func onlyInt64() -> Int64? {
        switch source {
        case .sqlite(let statement, let layout):
            layout._withUnsafeGuaranteedRef { precondition($0.count == 1, "a query of one value has one column: \($0.sql)") }
            return sqlite3_column_type(statement, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 0)
        case .fetched(let rows, let index):
            precondition(rows.layout.count == 1, "a query of one value has one column: \(rows.layout.sql)")
            return rows.isNull(index, 0) ? nil : rows.int64(index, 0)
        }
    }

    /// The text of a result of one column, whatever SQL names it (``LedgerConnection/texts(_:_:)``).
    func onlyText() -> String {
        switch source {
        case .sqlite(let statement, let layout):
            layout._withUnsafeGuaranteedRef { precondition($0.count == 1, "a query of one value has one column: \($0.sql)") }
            guard let bytes = sqlite3_column_text(statement, 0) else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, 0))), as: UTF8.self)
        case .fetched(let rows, let index):
            precondition(rows.layout.count == 1, "a query of one value has one column: \(rows.layout.sql)")
            return String(decoding: rows.bytes(index, 0), as: UTF8.self)
        }
    }
}

/// A whole result a backend has fetched (PostgreSQL's): its cells as text, read by position,
/// and where each ``Column`` is in it.
package protocol FetchedRows: AnyObject {
    /// Where each named column is.
    var layout: ColumnLayout { get }
    func isNull(_ row: Int32, _ position: Int32) -> Bool
    /// Whether the column at `position` holds integers (bigint, integer, smallint, boolean).
    func isInteger(_ position: Int32) -> Bool
    /// The cell as an integer (a boolean as 1 or 0).
    func int64(_ row: Int32, _ position: Int32) -> Int64
    /// The cell's text as UTF-8 bytes, valid while the result lives.
    func bytes(_ row: Int32, _ position: Int32) -> UnsafeRawBufferPointer
}
