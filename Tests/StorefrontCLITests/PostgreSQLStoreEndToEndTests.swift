import Foundation
import Testing

/// The command line on a store in PostgreSQL (a team's sandbox), against the tests' real
/// cluster: several processes racing on one store, and a password that never shows.
@Suite("storefront on a PostgreSQL store")
struct PostgreSQLStoreEndToEndTests {
    /// Ten processes buy one non-consumable at the same moment: it is bought once; the other nine
    /// are told they own it. Then ten buy a consumable at once: ten transactions, every id unique
    /// and above 2,000,000,000.
    @Test("a non-consumable raced by ten processes is bought once, the others told it is owned; ids unique")
    func tenProcessesBuyOnce() async throws {
        let sandbox = try Sandbox()
        let store = try PostgreSQLServer.shared().freshSchema(named: "race")
        // Finished consumables listed too (Apple's SKIncludeConsumableInAppPurchaseHistory), to count every id.
        try await sandbox.storefront(["settings", "set", "includeConsumablesInHistory", "true"], store: store).expect(exit: 0)
        try Self.expectBoughtOnce(try await Self.race(Self.nonConsumable) { _, id in
            try await sandbox.storefront(["buy", id, "--json"], store: store)
        })
        try Self.expectEachBought(try await Self.race(Self.consumable) { _, id in
            try await sandbox.storefront(["buy", id, "--json"], store: store)
        })
        try await Self.expectStoreHolds(try await sandbox.storefront(["transactions", "--json"], store: store))
    }

    static let nonConsumable = "com.razeware.razefaces.swiftshopping"
    static let consumable = "com.example.storefront.coins100"

    /// Ten buys of `product` at once, `buy(index, product)` each: their runs.
    static func race(_ product: String,
                     _ buy: @escaping @Sendable (Int, String) async throws -> RunResult) async throws -> [RunResult] {
        try await withThrowingTaskGroup(of: RunResult.self) { group in
            for index in 0..<10 { group.addTask { try await buy(index, product) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Ten racing `buy --json` of one non-consumable: every one exits 0 with `"result": "success"`;
    /// one bought it (`"outcome": "purchased"`), the nine others own it already
    /// (`"outcome": "alreadyOwned"`, `"alreadyOwned": true`), and all ten name the one transaction.
    static func expectBoughtOnce(_ runs: [RunResult], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var outcomes: [String] = [], ids: Set<Int64> = []
        for run in runs {
            run.expect(exit: 0, sourceLocation: sourceLocation)
            guard run.status == 0 else { continue }
            let json = try run.jsonObject(sourceLocation: sourceLocation)
            let outcome = json["outcome"] as? String ?? "none"
            outcomes.append(outcome)
            #expect(json["result"] as? String == "success", "\(run)", sourceLocation: sourceLocation)
            #expect(json["alreadyOwned"] as? Bool == (outcome == "alreadyOwned"), "\(run)", sourceLocation: sourceLocation)
            if let id = transactionID(in: json) { ids.insert(id) }
        }
        #expect(outcomes.sorted() == Array(repeating: "alreadyOwned", count: 9) + ["purchased"],
                "\(runs.map(\.summary))", sourceLocation: sourceLocation)
        #expect(ids.count == 1, "the ten buys name transactions \(ids)", sourceLocation: sourceLocation)
    }

    /// The id of the transaction a `buy --json` document names.
    static func transactionID(in json: [String: Any]) -> Int64? {
        ((json["transaction"] as? [String: Any])?["id"] as? NSNumber)?.int64Value
    }

    /// Ten racing `buy --json` of a consumable: every one bought it, each its own transaction.
    static func expectEachBought(_ runs: [RunResult], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var ids: Set<Int64> = []
        for run in runs {
            run.expect(exit: 0, sourceLocation: sourceLocation)
            guard run.status == 0 else { continue }
            let json = try run.jsonObject(sourceLocation: sourceLocation)
            #expect(json["outcome"] as? String == "purchased", "\(run)", sourceLocation: sourceLocation)
            if let id = transactionID(in: json) { ids.insert(id) }
        }
        #expect(ids.count == 10, "ten consumables bought as transactions \(ids)", sourceLocation: sourceLocation)
    }

    /// After both races: the non-consumable bought once, ten consumables, eleven ids unique and
    /// above 2,000,000,000.
    static func expectStoreHolds(_ listing: RunResult, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        listing.expect(exit: 0, sourceLocation: sourceLocation)
        let transactions = try #require(try listing.jsonObject()["transactions"] as? [[String: Any]], sourceLocation: sourceLocation)
        let ids = transactions.compactMap { ($0["id"] as? NSNumber)?.int64Value }
        #expect(transactions.filter { $0["productID"] as? String == nonConsumable }.count == 1, sourceLocation: sourceLocation)
        #expect(transactions.filter { $0["productID"] as? String == consumable }.count == 10, sourceLocation: sourceLocation)
        #expect(Set(ids).count == ids.count && ids.count == 11, "\(ids)", sourceLocation: sourceLocation)
        #expect(ids.allSatisfy { $0 > 2_000_000_000 }, sourceLocation: sourceLocation)
    }

    /// Another process's purchase is on the store at once: what one CLI buys, the next sees.
    @Test("what one process buys, another reads; approve from a second process ends a request")
    func secondProcessSeesTheFirst() async throws {
        let sandbox = try Sandbox()
        let store = try PostgreSQLServer.shared().freshSchema(named: "ask")
        try await sandbox.storefront(["settings", "set", "askToBuy", "true"], store: store).expect(exit: 0)
        try await sandbox.storefront(["buy", "com.razeware.razefaces.swiftshopping"], store: store).expect(exit: 0)
        let pending = try await sandbox.storefront(["transactions", "--pending", "--json"], store: store)
        let request = try #require((try pending.jsonObject()["requests"] as? [[String: Any]])?.first?["id"] as? NSNumber)
        try await sandbox.storefront(["approve", request.stringValue], store: store).expect(exit: 0)
        let products = try await sandbox.storefront(["products", "--json"], store: store)
        let rows = try #require(try products.jsonObject()["products"] as? [[String: Any]])
        let bought = try #require(rows.first { $0["id"] as? String == "com.razeware.razefaces.swiftshopping" })
        #expect(bought["owned"] as? Bool == true)
    }

    /// A password in the URI is in no output: not a listing, not --json, not an error.
    @Test("a password in the store's URI appears in no output, and a wrong one says what libpq said")
    func passwordNeverShown() async throws {
        let sandbox = try Sandbox()
        let server = try PostgreSQLServer.shared()
        _ = try server.freshSchema(named: "pw")  // the shared database exists
        let role = "pw_\(getpid())_\(UInt32.random(in: 0...0xFFFFFF))"
        let password = "Sesame\(UInt32.random(in: 100_000...999_999))Open"
        try server.psql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE \(PostgreSQLServer.passwordGroup)")
        try server.psql("CREATE SCHEMA \(role) AUTHORIZATION \(role)", database: PostgreSQLServer.schemasDatabase)
        let place = "@/\(PostgreSQLServer.schemasDatabase)?host=\(server.socketFolder)&port=\(server.port)&options=-csearch_path%3D\(role)"
        let store = "postgresql://\(role):\(password)" + place
        var outputs: [RunResult] = []
        for arguments in [["products"], ["products", "--json"], ["buy", "com.razeware.razefaces.swiftshopping", "--json"],
                          ["transactions"], ["buy", "no.such.product"], ["status", "--json"]] {
            outputs.append(try await sandbox.storefront(arguments, store: store))
        }
        outputs[0].expect(exit: 0)
        #expect(try outputs[2].jsonObject()["transaction"] != nil)
        let wrong = try await sandbox.storefront(["products"], store: "postgresql://\(role):Not\(password)" + place)
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("password authentication failed"))
        for output in outputs + [wrong] {
            #expect(!output.stdout.contains(password) && !output.stderr.contains(password), "\(output)")
        }
    }

    /// The paywall on a store in PostgreSQL hears another process's approval through LISTEN,
    /// without a key pressed, as it hears a file's through inotify.
    @Test("the paywall in tmux: a second process's approval arrives live; the title names the store")
    func paywallHearsAnotherProcess() async throws {
        let sandbox = try Sandbox(store: try PostgreSQLServer.shared().freshSchema(named: "paywall"))
        try await sandbox.storefront("settings", "set", "askToBuy", "true").expect(exit: 0)
        let title = try await Self.approvalHeardLive(sandbox)
        #expect(title.contains("PostgreSQL storefront_tests/s_paywall_"), "\(title)")
    }

    /// Asks to buy Swift Shopping in a paywall (on `paywallHost`, when given), approves it from
    /// another process (on `approveHost`), and waits up to 3 s for the ✓ with no key pressed:
    /// the paywall's title line, once heard. Needs `askToBuy` on.
    static func approvalHeardLive(_ sandbox: Sandbox, paywallHost: NetworkHosts.Host? = nil,
                                  approveHost: NetworkHosts.Host? = nil) async throws -> String {
        var title = ""
        try await withPaywall(sandbox, on: paywallHost) { session in
            try await session.waitFor("the product table") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.send("Down", "Down", "Down", "Enter")  // the three plans, then Swift Shopping
            try await session.waitFor("the confirmation sheet") { $0.contains { $0.contains("[ Confirm") } }
            try await session.send("Enter")
            try await session.waitFor("the Ask to Buy alert") { $0.contains { $0.contains("Purchase Pending") } }
            try await session.send("Enter")
            let pending = try await sandbox.storefront(["transactions", "--pending", "--json"], on: approveHost)
            let request = try #require((try pending.jsonObject()["requests"] as? [[String: Any]])?.first?["id"] as? NSNumber)
            try await sandbox.storefront(["approve", request.stringValue], on: approveHost).expect(exit: 0)
            let lines = try await session.waitFor("the approval, heard without a key", timeout: .seconds(3)) { lines in
                lines.contains { $0.contains("✓") && $0.contains("Swift Shopping") }
            }
            title = lines.first ?? ""
        }
        return title
    }

    /// A file's store copied into PostgreSQL and back: the same transactions, signed as they were,
    /// and the file that comes back is healthy to `doctor`.
    @Test("store copy: file -> PostgreSQL -> file holds the same transactions and receipt signer and passes doctor; an existing file is refused")
    func copyRoundTrip() async throws {
        let sandbox = try Sandbox()
        for arguments in [["buy", "com.razeware.razefaces.swiftshopping"], ["buy", "barcode_month_subscription"],
                          ["settings", "set", "includeConsumablesInHistory", "true"], ["buy", "com.example.storefront.coins100"],
                          ["clock", "advance", "P2M"]] {
            try await sandbox.storefront(arguments).expect(exit: 0)
        }
        func history(_ store: String) async throws -> [String] {
            let listing = try await sandbox.storefront(["transactions", "--json"], store: store)
            listing.expect(exit: 0)
            let rows = try #require(try listing.jsonObject()["transactions"] as? [[String: Any]])
            return rows.map { "\($0["id"] ?? "") \($0["productID"] ?? "") \($0["purchaseDate"] ?? "") \($0["expirationDate"] ?? "-") \($0["revocationPercentage"] ?? "-")" }
        }
        // A refund's chosen share is kept beside its row: it travels with the copy, and doctor finds it signed.
        let shopping = try #require(try await history(sandbox.store).first { $0.contains(" com.razeware.razefaces.swiftshopping ") })
        try await sandbox.storefront(["refund", String(shopping.prefix { $0 != " " }), "--prorated", "40"]).expect(exit: 0)
        let original = try await history(sandbox.store)
        #expect(original.count >= 5)  // a trial, renewals, a non-consumable, coins
        #expect(original.contains { $0.contains(" com.razeware.razefaces.swiftshopping ") && $0.hasSuffix(" 40000") })
        // The receipt signer (issued at the first receipt) goes with the store: receipts made before still verify.
        func receiptRoot(_ store: String) async throws -> String {
            try await sandbox.storefront(["key", "export", "--receipt", "--root"], store: store).stdout
        }
        let root = try await receiptRoot(sandbox.store)
        #expect(root.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let database = try PostgreSQLServer.shared().freshSchema(named: "copy")
        let there = try await sandbox.run(["store", "copy", sandbox.store, database, "--json"])
        there.expect(exit: 0)
        // The doctor on the team's store: every check that applies there passes.
        let checkup = try await sandbox.run(["--store", database, "doctor", "--json"])
        checkup.expect(exit: 0)
        #expect((try checkup.jsonObject()["passed"] as? [String])?.contains { $0.hasPrefix("a store in PostgreSQL") } == true)
        #expect(try there.jsonObject()["sealedTransactions"] as? Int == original.count)
        #expect(try await history(database) == original)
        #expect(try await receiptRoot(database) == root)
        let back = sandbox.path("back.sqlite")
        try await sandbox.run(["store", "copy", database, back]).expect(exit: 0)
        #expect(try await history(back) == original)
        #expect(try await receiptRoot(back) == root)
        try await sandbox.run(["--store", back, "doctor"]).expect(exit: 0)
        // A purchase on the copy in PostgreSQL takes a new id, after every copied one.
        let bought = try await sandbox.storefront(["buy", "com.razeware.razefaces.iphonerage", "--json"], store: database)
        let id = try #require((try bought.jsonObject()["transaction"] as? [String: Any])?["id"] as? NSNumber)
        #expect(!original.contains { $0.hasPrefix(id.stringValue + " ") })
        let refused = try await sandbox.run(["store", "copy", database, back])
        refused.expect(exit: 74)
        #expect(try await history(back) == original)
    }
}
