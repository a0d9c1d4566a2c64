import Foundation
import Glibc
import StorefrontCLI
import Testing
import TestSupport

/// Issue 43, as a user meets it through the binary: store paths of one character, store paths
/// SQLite would read as in-memory databases, an option taken as a value, `serve`'s usage errors
/// with --json, idle connections under a low limit on open files, the doctor's long lines.
@Suite("storefront: edge paths, option values, HOME and limits (process)")
struct CommandLineEdgeTests {
    /// Whether `path` is a SQLite database (its header), not an empty or other file.
    static func isSQLite(_ path: String) -> Bool {
        FileManager.default.contents(atPath: path)?.starts(with: Array("SQLite format 3\0".utf8)) == true
    }

    @Test("A store path of one character (q, STOREFRONT_STORE=s, -, a copy to z) works: no SIGILL")
    func oneCharacterStorePaths() async throws {
        let sandbox = try Sandbox()
        func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> RunResult {
            let run = try await sandbox.run(["--catalog", Binary.catalog] + arguments, environment: environment)
            #expect(run.signal == nil && run.status != 132, "\(arguments): \(run)")
            run.expectNoCrashOutput()
            return run
        }
        try await run(["--store", "q", "transactions"]).expect(exit: 0)
        try await run(["--store", "q", "buy", Demo.swiftShopping]).expect(exit: 0)
        try await run(["buy", Demo.nightlyRage], environment: ["STOREFRONT_STORE": "s"]).expect(exit: 0)
        // `-` is a file named `-`, as any other path (docs/store-file.md): not standard input.
        try await run(["--store", "-", "buy", Demo.goPro]).expect(exit: 0)
        try await run(["--store", "q", "store", "copy", "q", "z"]).expect(exit: 0)
        try FileManager.default.copyItem(atPath: sandbox.path("s"), toPath: sandbox.path("y"))
        for (store, product) in [("q", Demo.swiftShopping), ("s", Demo.nightlyRage), ("-", Demo.goPro), ("z", Demo.swiftShopping), ("y", Demo.nightlyRage)] {
            let listed = try await run(["--store", store, "transactions"])
            listed.expect(exit: 0)
            #expect(listed.stdout.contains(product), "\(store): \(listed.stdout)")
            let doctor = try await run(["doctor", "--store", store])
            doctor.expect(exit: 0)
            #expect(Self.isSQLite(sandbox.path(store)), "\(store)")
        }
    }

    @Test("--store :memory: and --store 'file:x?mode=memory' are files of those names: a purchase is kept, never made twice")
    func memoryNamesAreFiles() async throws {
        let sandbox = try Sandbox()
        for name in [":memory:", "file:x?mode=memory", "file::memory:"] {
            let first = try await sandbox.storefront(["buy", Demo.swiftShopping, "--json"], store: name).jsonObject()
            #expect(first["outcome"] as? String == "purchased", "\(name): \(first)")
            let id = (first["transaction"] as? [String: Any])?["id"] as? Int
            // Bought once: the second time is the same transaction, restored.
            let second = try await sandbox.storefront(["buy", Demo.swiftShopping, "--json"], store: name).jsonObject()
            #expect((second["transaction"] as? [String: Any])?["id"] as? Int == id, "\(name): \(second)")
            let listed = try await sandbox.storefront(["transactions", "--json"], store: name).jsonObject()
            #expect((listed["transactions"] as? [[String: Any]])?.count == 1, "\(name): \(listed)")
            #expect(Self.isSQLite(sandbox.path(name)), "\(name) is not a store file in the folder")
        }
    }

    @Test("buy X --store --json: a usage error (exit 64, JSON), no file named --json")
    func anOptionIsNoValue() async throws {
        let sandbox = try Sandbox()
        for arguments in [["buy", Demo.coins, "--store", "--json"], ["--store", "--json", "buy", Demo.coins], ["--catalog", "--json", "products"]] {
            let run = try await sandbox.run(arguments)
            run.expect(exit: 64)
            let error = try run.jsonObject()["error"] as? [String: Any]
            #expect(error?["name"] as? String == "usage", "\(arguments): \(run)")
            #expect((error?["message"] as? String)?.contains("--json is an option") == true, "\(run)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.path("--json")))
        }
        // Written with `=`, a value that begins with - is taken as it is.
        let named = try await sandbox.run(["--catalog", Binary.catalog, "--store=-x", "buy", Demo.coins])
        named.expect(exit: 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.path("-x")))
        // A negative number is a value (refused for what it is, not as an option).
        let negative = try await sandbox.storefront("buy", Demo.coins, "--quantity", "-2")
        negative.expect(exit: 64)
        #expect(negative.stderr.contains("at least 1"), "\(negative)")
    }

    @Test("serve's usage errors honour --json: a bad --listen, --notify or a remote address without --allow-remote")
    func serveUsageErrorsInJSON() async throws {
        let sandbox = try Sandbox()
        for (arguments, says) in [(["--listen", "nope"], "--listen needs HOST:PORT"), (["--notify", "ftp://x"], "--notify needs an http"),
                                  (["--listen", "0.0.0.0:0"], "--allow-remote")] {
            let run = try await sandbox.storefront(["serve", "--json"] + arguments)
            run.expect(exit: 64)
            let error = try run.jsonObject()["error"] as? [String: Any]
            #expect(error?["name"] as? String == "usage", "\(arguments): \(run)")
            #expect((error?["message"] as? String)?.contains(says) == true, "\(arguments): \(run)")
            #expect(run.stderr.contains(says))
        }
    }

    @Test("HOME=\"\" does not put the default store under /.local/state: the account's home is used")
    func emptyHome() throws {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let home = buffer.withUnsafeMutableBufferPointer { bytes in
            getpwuid_r(getuid(), &entry, bytes.baseAddress!, bytes.count, &found) == 0 && found != nil ? entry.pw_dir.map { String(cString: $0) } : nil
        }
        for environment in [["HOME": ""], ["HOME": "relative"], ["HOME": "", "XDG_STATE_HOME": ""], ["HOME": "", "XDG_STATE_HOME": "rel"]] {
            let path = CLI.defaultStorePath(environment: environment)
            #expect(!path.hasPrefix("/.local"), "\(environment): \(path)")
            #expect(path.hasPrefix("/"), "\(environment): \(path)")
            if let home { #expect(path == home + "/.local/state/storefront/store.sqlite", "\(environment)") }
        }
        #expect(CLI.defaultStorePath(environment: ["HOME": "/h"]) == "/h/.local/state/storefront/store.sqlite")
        #expect(CLI.defaultStorePath(environment: ["HOME": "/h", "XDG_STATE_HOME": "/x"]) == "/x/storefront/store.sqlite")
    }

    @Test("doctor names ten unfinished transactions on its line and counts the rest; --json lists them all")
    func doctorSummarisesLongLists() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "finishTransactions", "false").expect(exit: 0)
        for _ in 0..<13 { try await sandbox.storefront("buy", Demo.coins).expect(exit: 0) }
        let human = try await sandbox.run(["doctor", "--store", sandbox.store])
        human.expect(exit: 0)
        let line = try #require(human.stdout.split(separator: "\n").first { $0.contains("unfinished transaction") })
        #expect(line.contains("13 unfinished transactions"))
        #expect(line.contains("and 3 more (--json lists them all)"), "\(line)")
        #expect(line.count < 300, "\(line)")
        let json = try await sandbox.run(["doctor", "--store", sandbox.store, "--json"]).jsonObject()
        let note = json.objects("notes").first { $0["check"] as? String == "unfinished" }
        #expect((note?["transactionIDs"] as? [Int])?.count == 13)
    }

    @Test("A storefront locale with a bidi override is refused, naming its place; nothing of it reaches the terminal")
    func bidiLocaleRefused() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("bidi.json", """
            {"storefronts": {"USA": {"currency": "USD", "locale": "en_\\u202eUS"}},
             "products": [{"id": "coins", "type": "consumable", "displayName": "Coins", "price": "0.99"}]}
            """)
        let run = try await sandbox.storefront(["products"], catalog: catalog)
        run.expect(exit: 65)
        #expect(run.stderr.contains("storefronts.USA.locale"), "\(run.stderr)")
        #expect(!run.stdout.contains("\u{202E}") && !run.stderr.contains("\u{202E}"))
    }

    @Test("serve under ulimit -n 48 with 100 idle connections: the API answers again within the deadline, stderr stays small, no EXTERNAL_LOGGER warning")
    func idleConnectionsUnderALowFileLimit() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let binary = try #require(Binary.url)
        let server = try BackgroundProcess(URL(fileURLWithPath: "/bin/bash"),
                                           ["-c", "ulimit -n 48; exec \"$0\" \"$@\"", binary.path, "--catalog", Binary.catalog,
                                            "--store", sandbox.store, "serve", "--listen", "127.0.0.1:0"],
                                           in: sandbox.folder, environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.home])
        let port = try #require(UInt16(try await server.wait(for: #"listening on http://127\.0\.0\.1:(\d+)"#, seconds: 60)))
        let idle = (0..<100).map { _ in HTTPExchange.connect(port: port) }
        defer { idle.forEach { close($0) } }
        let start = Date()
        var answered: TimeInterval?
        var tries = 0
        while Date().timeIntervalSince(start) < 60 {
            tries += 1
            let answer = await HTTPExchange.send(port: port, "GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", seconds: 3)
            // Any answer of the API's (no token here: 401) shows it is serving.
            if answer.hasPrefix("HTTP/1.1 401") {
                answered = Date().timeIntervalSince(start)
                break
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        let waited = Date().timeIntervalSince(start)
        let output = server.text
        let stopped = await server.stop()
        print("serve under ulimit -n 48, 100 idle connections: the API answered after \(answered.map { String(format: "%.1f s", $0) } ?? "never") (\(tries) tries in \(String(format: "%.1f", waited)) s); output \(output.utf8.count) bytes")
        // The 10 s deadline and a little on a quiet machine (before this round: never, and 79 MB).
        #expect(answered != nil, "\(output.suffix(2000))")
        #expect(output.utf8.count < 4_000, "\(output.prefix(2000))")
        #expect(!output.contains("EXTERNAL_LOGGER"), "\(output.prefix(1000))")
        #expect(!output.contains("Too many open files"), "\(output.prefix(2000))")
        #expect(stopped == 0)
    }

    /// Issue 15 (7): escapes typed in arguments never reach standard error raw.
    @Test func escapesInArgumentsAreCleaned() async throws {
        let sandbox = try Sandbox()
        let evil = "x\u{1B}]0;owned\u{07}\u{202E}y"
        for arguments in [["buy", evil], ["refund", evil], ["clock", "advance", evil], ["settings", "set", evil, "1"]] {
            let run = try await sandbox.storefront(arguments)
            #expect(!run.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" }, "\(arguments[0])")
        }
    }
}
