import Foundation
import Glibc
import Synchronization

/// Why a test PostgreSQL cluster could not start, or could not do what a test asked.
public struct PostgreSQLServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// A real PostgreSQL cluster for tests: initdb in a new folder under /tmp, the server listening on
/// a Unix socket in that folder only (no TCP), every local user trusted except members of
/// ``passwordGroup``, who sign in with a password. As root (which the server refuses), initdb and
/// the server run as the `postgres` user (else `nobody`) through setpriv, with libnss-wrapper
/// answering their user look-ups from a passwd and a group file in the folder (/etc/passwd may be
/// readable by root only). scripts/with-postgres.sh does the same for a whole `make test` run;
/// docs/postgresql-tests.md says why.
public final class PostgreSQLServer: Sendable {
    /// The folder of the server's socket: libpq's `host`.
    public let socketFolder: String
    /// The server's port: with the folder, the socket's name (`.s.PGSQL.5432`).
    public let port: Int
    /// The cluster's superuser.
    public let superuser: String
    /// How long the cluster took to start (initdb, the server, the first answer); nil for one started elsewhere.
    public let startupTime: Duration?
    /// What this process started, to restart and stop; nil for the cluster STOREFRONT_TEST_POSTGRES names.
    private let owned: Owned?
    private let stopped = Mutex(false)
    /// The address it also listens on for TCP, if any (``start(tcp:)``).
    public let tcpAddress: String?

    /// The role whose members sign in with a password (the cluster's pg_hba.conf:
    /// `local all +storefront_password_users scram-sha-256`); every other role is trusted.
    public static let passwordGroup = "storefront_password_users"
    /// The environment variable naming a cluster already running (scripts/with-postgres.sh).
    public static let environmentVariable = "STOREFRONT_TEST_POSTGRES"

    /// A cluster this process started.
    fileprivate struct Owned: Sendable {
        var folder: String
        var binaries: String
        /// setpriv and its arguments when running as root; empty otherwise.
        var runAs: [String]
        var environment: [String: String]
        var data: String { folder + "/data" }
        var log: String { folder + "/server.log" }
    }

    private init(socketFolder: String, port: Int = 5432, superuser: String, startupTime: Duration?, tcpAddress: String? = nil,
                 owned: Owned?) {
        self.tcpAddress = tcpAddress
        self.socketFolder = socketFolder
        self.port = port
        self.superuser = superuser
        self.startupTime = startupTime
        self.owned = owned
    }

    // MARK: - Starting

    /// Starts a new cluster of this process's own; ``stop()`` stops it and removes its folder.
    /// Throws, saying why (the failing step's output, the server log's tail), when it cannot.
    /// - Parameter tcp: also listen for TCP on this address, trusting clients in that /16 (test
    ///   hosts' network, ``NetworkHosts``); its URIs: ``uriOverTCP(database:user:)``.
    public static func start(tcp address: String? = nil) throws -> PostgreSQLServer {
        let began = ContinuousClock.now
        let binaries = try serverBinaries()
        var template = Array("/tmp/storefront-pg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw PostgreSQLServerError(description: "cannot make a folder for the test cluster: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        var owned = Owned(folder: folder, binaries: binaries, runAs: [],
                          environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") })
        do {
            if geteuid() == 0 { try runAsServerUser(&owned) }
            chmod(folder, 0o700)
            try owned.run("initdb", ["-D", owned.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"])
            try configure(owned, tcp: address)
            try owned.run("pg_ctl", ["-D", owned.data, "-l", owned.log, "-w", "-t", "120", "start"])
            let server = PostgreSQLServer(socketFolder: folder, superuser: "postgres", startupTime: ContinuousClock.now - began,
                                          tcpAddress: address, owned: owned)
            try server.psql("CREATE ROLE \(passwordGroup) NOLOGIN")
            return server
        } catch {
            if FileManager.default.fileExists(atPath: owned.data + "/postmaster.pid") {
                _ = try? owned.run("pg_ctl", ["-D", owned.data, "-m", "immediate", "-w", "stop"])
            }
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// The newest server in /usr/lib/postgresql/*/bin (Debian's layout), or STOREFRONT_POSTGRES_BIN.
    private static func serverBinaries() throws -> String {
        if let override = ProcessInfo.processInfo.environment["STOREFRONT_POSTGRES_BIN"], !override.isEmpty { return override }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let found = versions.filter { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
            .max { $0.compare($1, options: .numeric) == .orderedAscending }
        guard let found else {
            throw PostgreSQLServerError(description: "no PostgreSQL server in /usr/lib/postgresql/*/bin: install Debian's postgresql (scripts/install-deps.sh)")
        }
        return "/usr/lib/postgresql/\(found)/bin"
    }

    /// As root: the server runs as `postgres` (else `nobody`) through setpriv, its user look-ups
    /// answered by libnss-wrapper from a passwd and a group file in the cluster's folder.
    private static func runAsServerUser(_ owned: inout Owned) throws {
        let libraries = ["/usr/lib"] + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []).map { "/usr/lib/" + $0 }
        guard let wrapper = libraries.map({ $0 + "/libnss_wrapper.so" }).first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw PostgreSQLServerError(description: "running as root needs libnss_wrapper.so to run PostgreSQL as another user: install Debian's libnss-wrapper (scripts/install-deps.sh)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw PostgreSQLServerError(description: "running as root needs /usr/bin/setpriv (util-linux) to run PostgreSQL as another user")
        }
        guard let account = getpwnam("postgres") ?? getpwnam("nobody") else {
            throw PostgreSQLServerError(description: "neither a postgres nor a nobody user to run PostgreSQL as")
        }
        let name = String(cString: account.pointee.pw_name)
        let uid = account.pointee.pw_uid
        let gid = account.pointee.pw_gid
        let passwd = owned.folder + "/passwd"
        let group = owned.folder + "/group"
        try "\(name):x:\(uid):\(gid):PostgreSQL test cluster:\(owned.folder):/bin/false\n".write(toFile: passwd, atomically: false, encoding: .utf8)
        try "\(name):x:\(gid):\n".write(toFile: group, atomically: false, encoding: .utf8)
        chmod(passwd, 0o644)
        chmod(group, 0o644)
        guard chown(owned.folder, uid, gid) == 0 else {
            throw PostgreSQLServerError(description: "cannot give \(owned.folder) to \(name): \(String(cString: strerror(errno)))")
        }
        owned.runAs = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"]
        owned.environment["LD_PRELOAD"] = wrapper
        owned.environment["NSS_WRAPPER_PASSWD"] = passwd
        owned.environment["NSS_WRAPPER_GROUP"] = group
    }

    /// The socket in the folder, TCP only on `tcp`; trust, but a password for ``passwordGroup``'s members.
    private static func configure(_ owned: Owned, tcp: String?) throws {
        let hba = owned.data + "/pg_hba.conf"
        let network = tcp.map { $0.split(separator: ".").prefix(2).joined(separator: ".") + ".0.0/16" }
        try """
            # A test cluster (Sources/TestSupport/PostgreSQLServer.swift): a Unix socket, and test hosts.
            local all +\(passwordGroup) scram-sha-256
            local all all trust
            \(network.map { "host all all \($0) trust" } ?? "")

            """.write(toFile: hba, atomically: false, encoding: .utf8)
        if let attributes = try? FileManager.default.attributesOfItem(atPath: owned.data),
           let uid = attributes[.ownerAccountID] as? NSNumber, let gid = attributes[.groupOwnerAccountID] as? NSNumber {
            chown(hba, uid.uint32Value, gid.uint32Value)
        }
        let settings = """

            # A test cluster (Sources/TestSupport/PostgreSQLServer.swift): a Unix socket in its folder, no TCP.
            listen_addresses = '\(tcp ?? "")'
            unix_socket_directories = '\(owned.folder)'
            port = 5432
            max_connections = 1000
            \(tcp == nil ? "" : "log_connections = on  # tests read which hosts connected")

            """
        guard let file = FileHandle(forWritingAtPath: owned.data + "/postgresql.conf") else {
            throw PostgreSQLServerError(description: "initdb left no postgresql.conf in \(owned.data)")
        }
        defer { try? file.close() }
        try file.seekToEnd()
        try file.write(contentsOf: Data(settings.utf8))
    }

    // MARK: - The cluster of the test run

    private static let sharedServer = Mutex<Result<PostgreSQLServer, PostgreSQLServerError>?>(nil)

    /// The cluster the tests share: the one STOREFRONT_TEST_POSTGRES names (scripts/with-postgres.sh,
    /// under `make test`), else one this process starts on first use and stops when it exits.
    /// The same error for every caller when it cannot start: a test that needs it fails, never skips.
    public static func shared() throws -> PostgreSQLServer {
        try sharedServer.withLock { state throws(PostgreSQLServerError) -> PostgreSQLServer in
            if state == nil {
                do {
                    if let uri = ProcessInfo.processInfo.environment[environmentVariable], !uri.isEmpty {
                        state = .success(try running(uri))
                    } else {
                        state = .success(try start())
                        atexit { PostgreSQLServer.stopShared() }
                    }
                } catch let error as PostgreSQLServerError {
                    state = .failure(error)
                } catch {
                    state = .failure(PostgreSQLServerError(description: "\(error)"))
                }
            }
            return try state!.get()
        }
    }

    private static func stopShared() {
        let server = sharedServer.withLock { try? $0?.get() }
        server?.stop()
    }

    /// The running cluster a URI names (`postgresql:///postgres?host=/socket/folder&user=postgres`).
    private static func running(_ uri: String) throws -> PostgreSQLServer {
        let query = uri.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { parameters[String(parts[0])] = String(parts[1]).removingPercentEncoding ?? String(parts[1]) }
        }
        guard let host = parameters["host"], host.hasPrefix("/") else {
            throw PostgreSQLServerError(description: "\(environmentVariable) must name the cluster's socket folder (?host=/folder): \(uri)")
        }
        return PostgreSQLServer(socketFolder: host, port: parameters["port"].flatMap { Int($0) } ?? 5432,
                                superuser: parameters["user"] ?? "postgres", startupTime: nil, owned: nil)
    }

    // MARK: - Databases

    /// A libpq URI for `database` on this cluster, as `user` (the superuser by default); the port
    /// named, so that a PGPORT in the environment cannot send it to another socket.
    public func uri(database: String = "postgres", user: String? = nil) -> String {
        "postgresql:///\(database)?host=\(socketFolder)&port=\(port)&user=\(user ?? superuser)"
    }

    /// The same database over TCP, as a test host reaches it (``start(tcp:)``'s address).
    public func uriOverTCP(database: String, user: String? = nil) throws -> String {
        guard let tcpAddress else { throw PostgreSQLServerError(description: "this cluster listens on no TCP address") }
        return "postgresql://\(user ?? superuser)@\(tcpAddress):\(port)/\(database)"
    }

    /// Creates the database `name` (a name of letters, digits and `_`).
    public func createDatabase(_ name: String) throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw PostgreSQLServerError(description: "a test database's name is letters, digits and _: \(name)")
        }
        try psql("CREATE DATABASE \(name)")
    }

    private static let databaseCount = Mutex(0)

    /// Creates a database of its own for a suite or a test, named after `name` and unique on the
    /// cluster (a run's tests share it, and each run's too), and returns its URI.
    public func freshDatabase(named name: String) throws -> String {
        let readable = String(name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(36))
        let count = Self.databaseCount.withLock { count in
            count += 1
            return count
        }
        let unique = "t_\(readable)_\(getpid())_\(count)_\(UInt32.random(in: 0...0xFFFFFF))"
        try createDatabase(unique)
        return uri(database: unique)
    }

    /// The database every ``freshSchema(named:)`` is made in.
    public static let schemasDatabase = "storefront_tests"
    private static let schemasDatabaseMade = Mutex(false)

    /// A store of its own for a test, at the cost of a `CREATE SCHEMA`: a new schema, unique on
    /// the cluster, in one shared database (``schemasDatabase``), and a URI whose connections
    /// use it (`options=-csearch_path=…`), as a team may keep several stores in one database.
    /// A database per test would copy the template database through the log each time.
    public func freshSchema(named name: String) throws -> String {
        try Self.schemasDatabaseMade.withLock { made in
            guard !made else { return }
            if try psql("SELECT count(*) FROM pg_database WHERE datname = '\(Self.schemasDatabase)'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "0" {
                try createDatabase(Self.schemasDatabase)
            }
            made = true
        }
        let readable = String(name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(36))
        let count = Self.databaseCount.withLock { count in
            count += 1
            return count
        }
        let unique = "s_\(readable)_\(getpid())_\(count)_\(UInt32.random(in: 0...0xFFFFFF))"
        try psql("CREATE SCHEMA \(unique)", database: Self.schemasDatabase)
        return uri(database: Self.schemasDatabase) + "&options=-csearch_path%3D\(unique)"
    }

    /// Runs SQL as the superuser through the server's own `psql`, for the set-up libpq's
    /// parameters cannot take (CREATE DATABASE, CREATE ROLE … PASSWORD); its output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let binaries = try owned?.binaries ?? Self.serverBinaries()
        let outcome = Processes.run([binaries + "/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", socketFolder,
                                     "-p", String(port), "-U", superuser, "-d", database, "-c", sql],
                                    environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }, timeout: 60)
        guard outcome.status == 0 else {
            throw PostgreSQLServerError(description: "psql on \(socketFolder) failed: \(outcome.summary)")
        }
        return outcome.stdout
    }

    // MARK: - Stopping

    /// The server's log so far (empty for a cluster started elsewhere).
    public var log: String { owned.map { Processes.read($0.log) } ?? "" }

    /// Stops the server (fast: sessions ended, nothing lost) and removes its folder; once.
    /// A cluster started elsewhere is left alone.
    public func stop() {
        guard let owned, !stopped.withLock({ stopped in defer { stopped = true }; return stopped }) else { return }
        if (try? owned.run("pg_ctl", ["-D", owned.data, "-m", "fast", "-w", "-t", "60", "stop"])) == nil {
            _ = try? owned.run("pg_ctl", ["-D", owned.data, "-m", "immediate", "-w", "stop"])
        }
        try? FileManager.default.removeItem(atPath: owned.folder)
    }

    /// Stops the server, ending every session, and starts it again on the same socket: what a
    /// client's reconnection is tested against. Only for a cluster this process started.
    public func restart() throws {
        guard let owned else {
            throw PostgreSQLServerError(description: "the cluster \(Self.environmentVariable) names is shared by the whole run: start one of your own to restart")
        }
        try owned.run("pg_ctl", ["-D", owned.data, "-l", owned.log, "-m", "fast", "-w", "-t", "120", "restart"])
    }

    deinit {
        stop()
    }
}

extension PostgreSQLServer.Owned {
    /// Runs one of the server's programs as the server's user, in the cluster's folder (the
    /// caller's may be one that user cannot enter); throws with its output and the log's tail.
    @discardableResult
    func run(_ program: String, _ arguments: [String]) throws -> ProcessOutcome {
        let command = runAs + ["/usr/bin/env", "-C", folder, binaries + "/" + program] + arguments
        let outcome = Processes.run(command, environment: environment, timeout: 180)
        guard outcome.status == 0 else {
            let log = Processes.read(self.log).split(separator: "\n").suffix(20).joined(separator: "\n")
            throw PostgreSQLServerError(description: """
                \(program) failed for the test cluster in \(folder): \(outcome.summary)
                \(log.isEmpty ? "" : "the server log's tail:\n\(log)")
                """)
        }
        return outcome
    }
}
