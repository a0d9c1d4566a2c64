import CLibPQ

/// A PostgreSQL result as the ledger's rows read it: by ``Column``, cells as text.
final class PostgreSQLFetchedRows: FetchedRows {
    let result: PostgreSQLResult
    let layout: ColumnLayout
    /// By position: whether the column's type is an integer (int2, int4, int8) or boolean.
    private let integers: [Bool]

    init(_ result: PostgreSQLResult, sql: String) {
        self.result = result
        layout = ColumnLayout(names: result.columnNames, sql: sql)
        integers = (0..<Int32(result.columnNames.count)).map { [16, 20, 21, 23].contains(result.columnType($0)) }
    }

    func isNull(_ row: Int32, _ position: Int32) -> Bool { result.cellIsNull(row, position) }
    func isInteger(_ position: Int32) -> Bool { integers[Int(position)] }

    func int64(_ row: Int32, _ position: Int32) -> Int64 {
        let bytes = result.cellBytes(row, position)
        // A boolean's `t` and `f`, as SQLite's comparisons give 1 and 0.
        if bytes.count == 1, bytes[0] == UInt8(ascii: "t") { return 1 }
        if bytes.count == 1, bytes[0] == UInt8(ascii: "f") { return 0 }
        // As SQLite reads text as an integer: its leading digits (a numeric's integral part).
        var value: Int64 = 0
        var negative = false
        for (offset, byte) in bytes.enumerated() {
            if offset == 0, byte == UInt8(ascii: "-") { negative = true; continue }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            value = value &* 10 &+ Int64(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }

    func bytes(_ row: Int32, _ position: Int32) -> UnsafeRawBufferPointer { result.cellBytes(row, position) }
}
