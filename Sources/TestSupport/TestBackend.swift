import Foundation

/// Which backend the store suites run on: a SQLite file (the default), or PostgreSQL when
/// `STOREFRONT_TEST_BACKEND=postgresql` (`make test` runs the backend-neutral suites a second
/// time so; `docs/postgresql-tests.md`).
public enum TestBackend: String, Sendable {
    case sqlite
    case postgreSQL = "postgresql"

    /// The environment variable that chooses.
    public static let environmentVariable = "STOREFRONT_TEST_BACKEND"

    /// The backend of this run.
    public static let current: TestBackend = {
        let named = ProcessInfo.processInfo.environment[environmentVariable] ?? ""
        return TestBackend(rawValue: named.lowercased()) ?? .sqlite
    }()
}
