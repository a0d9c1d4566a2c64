import CLibPQ

/// The rows of one statement's result, every value as text; owns libpq's PGresult and frees it
/// when the last reference to it goes.
package final class PostgreSQLResult: RandomAccessCollection {
    /// The PGresult; never NULL.
    private let result: OpaquePointer
    /// Column names that two or more columns of the result share (a join's `id` and `id`).
    private let sharedNames: Set<String>

    init(_ result: OpaquePointer) {
        self.result = result
        var seen: Set<String> = []
        var shared: Set<String> = []
        for column in 0..<PQnfields(result) {
            let name = String(cString: PQfname(result, column))
            if !seen.insert(name).inserted { shared.insert(name) }
        }
        sharedNames = shared
    }

    deinit {
        PQclear(result)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { Int(PQntuples(result)) }
    package subscript(position: Int) -> PostgreSQLRow {
        precondition(position >= 0 && position < endIndex, "row \(position) of a result of \(endIndex)")
        return PostgreSQLRow(result: self, row: Int32(position))
    }

    /// Rows an INSERT, UPDATE, DELETE, … changed (PQcmdTuples); 0 for other statements.
    package var rowsAffected: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The command's tag (`INSERT 0 1`, `COMMIT`; `ROLLBACK` for a COMMIT of a failed transaction).
    package var commandStatus: String { String(cString: PQcmdStatus(result)) }

    /// The result's column names, in the order the statement gives them.
    package var columnNames: [String] { (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) } }

    /// The position of the column named exactly `name` (PQfnumber, the name quoted so that case
    /// counts). A name the result does not have, or has twice, is a bug in the code that reads
    /// it, found by the first test that runs it: it stops the program, as an index out of range
    /// does, rather than read another column's value or a silent NULL.
    fileprivate func column(_ name: String) -> Int32 {
        let position = PQfnumber(result, "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        precondition(position >= 0, "no column named \(name) in a result of \(columnNames)")
        precondition(!sharedNames.contains(name), "two columns named \(name) in a result of \(columnNames)")
        return position
    }

    fileprivate func isNull(_ row: Int32, _ column: Int32) -> Bool { PQgetisnull(result, row, column) != 0 }

    /// The value's bytes as the server sent them (text format), without making a String.
    fileprivate func withBytes<R>(_ row: Int32, _ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let count = Int(PQgetlength(result, row, column))
        return PQgetvalue(result, row, column).withMemoryRebound(to: UInt8.self, capacity: count) {
            body(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    fileprivate var columnCount: Int32 { PQnfields(result) }

    // MARK: - Cells by position, for the ledger's rows (PostgreSQLFetchedRows)

    /// Whether the cell is NULL.
    func cellIsNull(_ row: Int32, _ column: Int32) -> Bool { isNull(row, column) }

    /// The cell's text as the server sent it, valid while this result lives.
    func cellBytes(_ row: Int32, _ column: Int32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column)))
    }

    /// The column's type, as the OID of `pg_type` (20 bigint, 23 integer, 16 boolean, 25 text, …).
    func columnType(_ column: Int32) -> UInt32 { UInt32(PQftype(result, column)) }
}

/// One row of a ``PostgreSQLResult``, read by column name. NULL reads as `""`, `0` or no bytes,
/// as SQLite's rows read it; the `optional…` readers and ``isNull(_:)`` tell NULL apart.
package struct PostgreSQLRow {
    let result: PostgreSQLResult
    let row: Int32

    /// Whether the column's value is NULL (not an empty string).
    package func isNull(_ name: String) -> Bool { result.isNull(row, result.column(name)) }

    /// The column's text; `""` for NULL.
    package func text(_ name: String) -> String {
        result.withBytes(row, result.column(name)) { String(decoding: $0, as: UTF8.self) }
    }

    /// The column's text, nil for NULL.
    package func optionalText(_ name: String) -> String? { isNull(name) ? nil : text(name) }

    /// The column's integer (`bigint`, `integer`, …); 0 for NULL. Text that is not an integer
    /// (a `numeric` with a fraction, a word) is a bug in the code that reads it: it stops.
    package func int64(_ name: String) -> Int64 { optionalInt64(name) ?? 0 }

    /// The column's integer, nil for NULL.
    package func optionalInt64(_ name: String) -> Int64? {
        let column = result.column(name)
        guard !result.isNull(row, column) else { return nil }
        return Self.integer(result.withBytes(row, column) { String(decoding: $0, as: UTF8.self) }, name)
    }

    /// The column's `boolean` (`t` or `f` in text); false for NULL.
    package func bool(_ name: String) -> Bool { text(name) == "t" }

    /// The column's `bytea`, decoded from the hex (`\x…`) or the older escape format; empty for NULL.
    package func bytes(_ name: String) -> [UInt8] { optionalBytes(name) ?? [] }

    /// The column's `bytea`, nil for NULL.
    package func optionalBytes(_ name: String) -> [UInt8]? {
        let column = result.column(name)
        guard !result.isNull(row, column) else { return nil }
        guard let bytes = result.withBytes(row, column, Self.decodeBytea) else {
            preconditionFailure("the column \(name) is not bytea text: \(text(name).prefix(40))")
        }
        return bytes
    }

    /// The value of a result of one column, whatever SQL names it (``PostgreSQLConnection/scalar(_:_:)``).
    func onlyInt64() -> Int64? {
        precondition(result.columnCount == 1, "a query of one value has one column: \(result.columnNames)")
        guard !result.isNull(row, 0) else { return nil }
        return Self.integer(result.withBytes(row, 0) { String(decoding: $0, as: UTF8.self) }, result.columnNames[0])
    }

    private static func integer(_ text: String, _ name: String) -> Int64 {
        guard let value = Int64(text) else { preconditionFailure("the column \(name) is not an integer: \(text.prefix(40))") }
        return value
    }

    /// bytea's text forms: hex, `\x` then two digits a byte (PostgreSQL's default output); or
    /// escape, bytes as they are but `\\` and `\ooo` (octal). Nil for text in neither form.
    static func decodeBytea(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let backslash = UInt8(ascii: "\\")
        if text.count >= 2, text[0] == backslash, text[1] == UInt8(ascii: "x") {
            guard text.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity((text.count - 2) / 2)
            var index = 2
            while index < text.count {
                guard let high = hexValue(text[index]), let low = hexValue(text[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            }
            return bytes
        }
        var bytes: [UInt8] = []
        var index = 0
        while index < text.count {
            guard text[index] == backslash else {
                bytes.append(text[index])
                index += 1
                continue
            }
            if index + 1 < text.count, text[index + 1] == backslash {
                bytes.append(backslash)
                index += 2
            } else if index + 3 < text.count, let octal = octalValue(text[index + 1...index + 3]) {
                bytes.append(octal)
                index += 4
            } else {
                return nil
            }
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func octalValue(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt8? {
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { return nil }
            value = value * 8 + Int(digit - UInt8(ascii: "0"))
        }
        return value <= 255 ? UInt8(value) : nil
    }
}
