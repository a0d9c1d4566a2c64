/// One connection to the database behind a store, as the ledger uses it: statements with
/// bound parameters (never SQL built from strings), rows read by column name, atomic writes and
/// consistent reads. Two backends conform: ``SQLiteDatabase`` (the store file) and
/// ``PostgreSQLStoreConnection`` (a team's store). The ledger's SQL is written once, in the
/// subset both speak, with `?` for each parameter.
package protocol LedgerConnection: AnyObject {
    /// Runs one or more statements that take no parameters.
    func execute(_ sql: String) throws(DatabaseError)
    /// Runs a query with `parameters` bound in order and hands each row to `body`.
    func query(_ sql: String, _ parameters: [any SQLBindable], _ body: (Row) throws(DatabaseError) -> Void) throws(DatabaseError)
    /// Runs `body` as one atomic write, the store's write lock taken up front; inside another
    /// write it joins that one. `durable` false: a record that may be made again, never a purchase.
    func transaction<T>(durable: Bool, _ body: () throws -> T) throws -> T
    /// Runs `body` on one state of the store; inside a write or another read it just runs.
    func read<T>(_ body: () throws -> T) throws -> T
    /// Rows the last statement inserted, updated or deleted.
    var changes: Int { get }
    /// Rows this connection has inserted, updated or deleted since it opened.
    var totalChanges: Int64 { get }
    /// Changes with every change this connection makes to the `transactions` table (and every
    /// rollback): with the store's version, whether a read of that table may be reused.
    var transactionsGeneration: Int64 { get }
    /// No write or read is open on this connection.
    var isOutsideTransaction: Bool { get }
    /// A number that changes when another connection commits a write to the store (SQLite's
    /// `PRAGMA data_version`; PostgreSQL's store version, counted up by every write).
    func storeVersion() throws(DatabaseError) -> Int64
    /// The columns of `table`, in order (a generated `rowid` left out): what a copy of the store carries.
    func columns(of table: String) throws(DatabaseError) -> [String]
    /// Runs a query and hands each row to `body` as its values in order, typed as stored: a copy
    /// of the store reads rows so, whatever their columns.
    func values(_ sql: String, _ body: ([SQLValue]) throws(DatabaseError) -> Void) throws(DatabaseError)
}

extension LedgerConnection {
    /// Runs `body` as one atomic, durable write (``transaction(durable:_:)``).
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(durable: true, body)
    }

    /// Runs a statement for its effect.
    package func run(_ sql: String, _ parameters: any SQLBindable...) throws(DatabaseError) {
        try query(sql, parameters) { _ in }
    }

    /// The rows of a query, each mapped by `transform`.
    package func rows<T>(_ sql: String, _ parameters: any SQLBindable..., as transform: (Row) -> T) throws(DatabaseError) -> [T] {
        var result: [T] = []
        try query(sql, parameters) { row in result.append(transform(row)) }
        return result
    }

    /// The one column of the first row, as an integer: a query of one value (`count(*)`,
    /// `max(id)`, a pragma), which has no other column to mistake it for.
    package func scalar(_ sql: String, _ parameters: any SQLBindable...) throws(DatabaseError) -> Int64? {
        var value: Int64?
        try query(sql, parameters) { row in if value == nil { value = row.onlyInt64() } }
        return value
    }

    /// The one column of each row, as text: a query of one value a row (a pragma's list, a check's answers).
    package func texts(_ sql: String, _ parameters: any SQLBindable...) throws(DatabaseError) -> [String] {
        var result: [String] = []
        try query(sql, parameters) { row in result.append(row.onlyText()) }
        return result
    }

}
