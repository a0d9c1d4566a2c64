import Foundation

/// Where a store is kept: a SQLite file (the default), or a PostgreSQL database a libpq
/// connection URI names (`postgresql://…` or `postgres://…`), for a team's shared sandbox.
public enum StoreAddress: Sendable, Equatable {
    case file(String)
    case postgreSQL(String)

    /// What `--store`, `STOREFRONT_STORE` or `configure(store:)` named: a URI of PostgreSQL's
    /// schemes is a database, anything else a file's path.
    public init(_ location: String) {
        self = location.hasPrefix("postgresql://") || location.hasPrefix("postgres://") ? .postgreSQL(location) : .file(location)
    }

    /// The address as users see it: the path, or the URI without its password.
    public var shown: String {
        switch self {
        case .file(let path): path
        case .postgreSQL(let uri): PostgreSQLConnection.redacted(uri)
        }
    }

    /// The store's name, short, for a title line: the file's name, or `PostgreSQL` and the
    /// database (with the schema when the URI names one: `PostgreSQL team/android`).
    public var name: String {
        switch self {
        case .file(let path):
            return (path as NSString).lastPathComponent
        case .postgreSQL(let uri):
            let rest = uri.split(separator: "://", maxSplits: 1).last.map(String.init) ?? ""
            let beforeQuery = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let database = beforeQuery.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first
                .map { String($0).removingPercentEncoding ?? String($0) } ?? ""
            let query = rest.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            let schema = query.split(separator: "&").compactMap { pair -> String? in
                let decoded = String(pair).removingPercentEncoding ?? String(pair)
                guard decoded.hasPrefix("options="), let range = decoded.range(of: "search_path=") else { return nil }
                return String(decoded[range.upperBound...].prefix { $0 != " " && $0 != "," })
            }.first
            return "PostgreSQL " + (database.isEmpty ? "(default database)" : database) + (schema.map { "/" + $0 } ?? "")
        }
    }

    /// The address as given: a path, or the whole URI (password included: never shown).
    package var location: String {
        switch self {
        case .file(let path), .postgreSQL(let path): path
        }
    }

    /// Whether the store is a file (one host's, so it may keep a path such as its catalog's).
    public var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}

extension Ledger {
    /// Opens the store at `address`: the file (``init(path:bundleID:createFolder:durability:template:now:)``,
    /// a new one made from `template` when given) or the database (``init(postgreSQL:bundleID:now:)``).
    package static func open(_ address: StoreAddress, bundleID: String, createFolder: Bool, durability: Durability = .full,
                             template: [UInt8]? = nil, now: @escaping @Sendable () -> Date) throws(StoreFileError) -> Ledger {
        switch address {
        case .file(let path):
            try Ledger(path: path, bundleID: bundleID, createFolder: createFolder, durability: durability, template: template, now: now)
        case .postgreSQL(let uri): try Ledger(postgreSQL: uri, bundleID: bundleID, now: now)
        }
    }
}
