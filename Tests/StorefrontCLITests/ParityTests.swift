import Foundation
import Scenarios
import StoreEngine
import StorefrontCLI
import StorefrontKit
import StorefrontUI
import Testing
import TerminalCore

/// One store, four front ends, one truth (issue 26): for stores in the states a tester meets, the
/// CLI's `products` and `transactions` (text and `--json`), the paywall's rendered rows,
/// StorefrontKit and a scenario's `expect` lines say the same thing — the same owned and entitled
/// products, the same status words, the same prices, the same transaction states.
///
/// Each store is set up through the engine's faces on a clock that stands still (the store's own
/// clock moved with `advanceClock`); every front end reads it at that time.
@Suite("Parity")
struct ParityTests {
    /// The clock every front end reads the store at (a scenario's `start`).
    static let start = try! Date("2026-01-05T09:00:00Z", strategy: .iso8601)
    static let catalog = try! Catalog.load(contentsOf: Repository.catalog)

    /// A store state, made through the faces.
    struct State: Sendable, CustomTestStringConvertible {
        var name: String
        var prepare: @Sendable (Store, _ path: String, _ clock: @escaping @Sendable () -> Date) async throws -> Void
        var testDescription: String { name }
    }

    static func advance(_ store: Store, _ duration: String) async throws {
        _ = try await store.testSession.advanceClock(by: ISODuration(duration)!)
    }

    static func set(_ store: Store, _ name: String, _ value: String) async throws {
        _ = try await store.testSession.setSetting(name, to: value)
    }

    static func buy(_ store: Store, _ productID: String) async throws -> StoreEngine.Transaction {
        try #require(try await store.app.buy(productID).outcome.transaction)
    }

    static let states: [State] = [
        State(name: "trial") { store, _, _ in _ = try await buy(store, Demo.monthly) },
        State(name: "renewed trial") { store, _, _ in
            _ = try await buy(store, Demo.monthly)
            try await advance(store, "P1W")
        },
        State(name: "grace period") { store, _, _ in
            _ = try await buy(store, Demo.monthly)
            try await set(store, "billingIssues", "true")
            try await set(store, "gracePeriod", "true")
            try await advance(store, "P8D")
        },
        State(name: "billing retry") { store, _, _ in
            _ = try await buy(store, Demo.monthly)
            try await set(store, "billingIssues", "true")
            try await advance(store, "P8D")
        },
        State(name: "downgrade scheduled") { store, _, _ in
            _ = try await buy(store, Demo.yearly)
            _ = try await store.app.buy(Demo.monthly)
        },
        State(name: "reset app") { store, _, _ in
            _ = try await buy(store, Demo.yearly)
            _ = try await buy(store, Demo.swiftShopping)
            try await store.testSession.reset(.app)
        },
        State(name: "family share") { store, path, clock in
            _ = try await store.testSession.createAccount("alice")
            _ = try await store.testSession.createFamily("smiths", organizer: "alice")
            _ = try await store.testSession.addFamilyMember(store.account, to: "smiths")
            let alice = try Store(catalog: ParityTests.catalog, path: path, account: "alice", now: clock)
            _ = try await buy(alice, Demo.goPro)
        },
        State(name: "refunded") { store, _, _ in
            let bought = try await buy(store, Demo.swiftShopping)
            _ = try await store.appStore.refund(bought.id)
            _ = try await buy(store, Demo.iPhoneRage)
        },
        State(name: "no payments") { store, _, _ in
            _ = try await buy(store, Demo.swiftShopping)
            try await set(store, "canMakePayments", "false")
        },
        State(name: "German storefront") { store, _, _ in
            try await set(store, "storefront", "DEU")
            _ = try await buy(store, Demo.yearly)
        },
        State(name: "foreign currency") { store, _, _ in
            try await set(store, "storefront", "DEU")
            _ = try await buy(store, Demo.swiftShopping)
            try await set(store, "storefront", "USA")
            _ = try await buy(store, Demo.iPhoneRage)
        },
    ]

    /// Each state on a store file and on a store in PostgreSQL: no front end knows which it is on.
    @Test(arguments: states, [TestBackend.sqlite, .postgreSQL])
    func everyFrontEndSaysTheSame(_ state: State, on backend: TestBackend) async throws {
        let folder = try TemporaryFolder(prefix: "storefront-parity")
        let path = backend == .postgreSQL ? try PostgreSQLServer.shared().freshSchema(named: "parity") : folder.path("store.sqlite")
        let clock: @Sendable () -> Date = { ParityTests.start }
        let store = try Store(catalog: Self.catalog, path: path, now: clock)
        try await state.prepare(store, path, clock)
        let commands = CLI.scenarioCommandLine
        // The app launches once (delivering what arrived); then every front end reads.
        _ = try await commands.launch(store)

        // The engine's facts, which every front end translates.
        let snapshot = try await store.app.snapshot()
        let standings = Dictionary(uniqueKeysWithValues: snapshot.products.map { ($0.id, snapshot.standing(of: $0)) })
        let now = try await store.appStore.now()
        let history = try await store.appStore.transactions()

        // The CLI: `products` and `transactions`, each as text and as JSON.
        let products = try await commands.run(["products"], catalog: Self.catalog, storePath: path, now: clock)
        let productRows = try Self.table(products.lines, header: "PRODUCT ID", columns: ["PRODUCT ID", "PRICE", "STATUS"])
        let productJSON = try #require(Self.objects(products.json?["products"]))
        let listing = try await commands.run(["transactions"], catalog: Self.catalog, storePath: path, now: clock)
        let transactionRows = try Self.table(listing.lines, header: "ID", columns: ["ID", "PRICE", "STATUS"])
        let transactionJSON = try #require(Self.objects(listing.json?["transactions"]))
        // No catalog: the same history, the same prices and states.
        let bare = try await commands.run(["transactions"], catalog: .absent, storePath: path, now: clock)
        #expect(try Self.table(bare.lines, header: "ID", columns: ["ID", "PRICE", "STATUS"]) == transactionRows, "\(bare.lines)")

        // The paywall: its rows as drawn.
        var paywall = StorefrontUI.State(size: Size(columns: 200, rows: 60), account: store.account, storePath: path,
                                         paywall: Self.catalog.paywall)
        _ = update(&paywall, .loaded(snapshot))
        let screen = render(paywall).lines

        // StorefrontKit, as an app calls it.
        let kitStore = try Store(catalog: Self.catalog, path: path, now: clock)
        let groups = Array(Set(snapshot.products.compactMap { $0.subscription?.subscriptionGroupID })).sorted()
        let kit = try await StoreContext.$current.withValue(StoreContext(store: kitStore)) {
            try await StoreKitReading.read(groups: groups, products: snapshot.products.map(\.id))
        }

        // Products: the CLI's text, its JSON, the paywall's row and StorefrontKit agree with the standing.
        var expectations: [String] = []
        for product in snapshot.products {
            let standing = try #require(standings[product.id])
            let words = standing.text(for: product)
            let price = standing.displayPrice ?? "Not available"
            let isChecked = product.type != .consumable && (standing.ownership == .owned || standing.ownership == .familyShared)
            let isEntitled = product.type != .consumable && standing.ownership != .none
            let row = try #require(productRows.first { $0[0] == product.id }, "\(product.id) in \(products.lines)")
            #expect(row[1] == price && row[2] == words, "\(product.id): the CLI's row \(row)")
            let json = try #require(productJSON.first { $0["id"] == .string(product.id) })
            #expect(json["status"] == .string(words), "\(product.id): --json status")
            if product.type != .consumable {
                #expect(json["owned"] == .bool(isChecked), "\(product.id): --json owned")
            }
            let drawn = try #require(screen.first { $0.contains(product.displayName) }, "\(product.displayName) on \(screen)")
            #expect(drawn.contains(paywall.glyphs.check) == isChecked, "\(product.id): the paywall's checkmark: \(drawn)")
            #expect(drawn.contains(price), "\(product.id): the paywall's price \(price): \(drawn)")
            #expect(words.isEmpty || drawn.contains(words), "\(product.id): the paywall's status \"\(words)\": \(drawn)")
            if product.type != .consumable {
                #expect(kit.entitled.contains(product.id) == isEntitled, "\(product.id): StorefrontKit's currentEntitlements")
                expectations.append("expect \(isChecked ? "" : "not ")owned \(product.id)")
                expectations.append("expect \(isEntitled ? "" : "not ")entitled \(product.id)")
            }
            if !words.isEmpty { expectations.append("expect screen \"\(words)\"") }
            if let info = product.subscription {
                // The offers' prices as the storefront writes them, in StorefrontKit as in the engine.
                let offers = (info.introductoryOffer.map { [$0] } ?? []) + info.promotionalOffers + info.winBackOffers
                #expect(kit.offerPrices[product.id] == offers.map(\.displayPrice), "\(product.id): StorefrontKit's offer prices")
            }
        }

        if state.name == "German storefront" {
            // A promotional offer in euros as Germany writes them ("29,99 €"), not "€29.99".
            #expect(kit.offerPrices[Demo.yearly]?.contains { $0.hasSuffix("€") } == true, "\(kit.offerPrices)")
        }

        // Subscription groups: StorefrontKit's state is the snapshot's.
        for group in groups {
            let state = snapshot.subscriptions[group]?.state.rawValue
            #expect(kit.states[group] == state, "\(group): StorefrontKit's status")
            expectations.append("expect status \(group) \(state ?? "none")")
        }

        // Transactions: the CLI's text and JSON say the engine's state and price; StorefrontKit's
        // price and currency write the same price.
        #expect(transactionRows.count == kit.prices.count, "the CLI's history and StorefrontKit's Transaction.all")
        for row in transactionRows {
            let transaction = try #require(history.first { String($0.id) == row[0] }, "transaction \(row[0])")
            let state = TransactionState(of: transaction, at: now).text
            #expect(row[1] == transaction.displayPrice && row[2] == state, "transaction \(transaction.id): the CLI's row \(row)")
            let json = try #require(transactionJSON.first { $0["id"] == .integer(transaction.id) })
            #expect(json["state"] == .string(state), "transaction \(transaction.id): --json state")
            let bought = try #require(kit.prices[transaction.id], "transaction \(transaction.id) in Transaction.all")
            let price = try #require(bought.price), currency = try #require(bought.currency)
            #expect(PriceText.display(price, currency: currency, storefront: bought.storefront) == row[1],
                    "transaction \(transaction.id): StorefrontKit's price")
        }

        // A scenario's `expect` lines, run on this store at this time, pass.
        // A screen as large as the paywall's above, so that every row shows.
        let text = (["catalog \(Repository.catalog)", "start 2026-01-05T09:00:00Z", "size 200x60"] + expectations).joined(separator: "\n")
        let scenario = try Scenario.parse(text, path: folder.path("parity.scenario"), commands: commands)
        let result = await (try ScenarioRun(scenario: scenario, catalog: Self.catalog, commands: commands, storePath: path)).run(keep: false)
        for step in result.steps where step.status != .passed {
            Issue.record("scenario line \(step.line) \(step.source): \(step.status), expected \(step.expected ?? ""), found \(step.found ?? "")")
        }
        #expect(result.steps.count == expectations.count)
    }

    // MARK: - Reading the CLI's output

    /// The rows of the text table whose header starts with `header`: the cells of `columns`
    /// (each from its header's column to the next named one's), trimmed.
    static func table(_ printed: [String], header: String, columns: [String]) throws -> [[String]] {
        let all = header == "ID" ? ["ID", "PURCHASED", "PRODUCT ID", "QTY", "PRICE", "STATUS", "EXPIRES", "NOTES"]
            : ["PRODUCT ID", "NAME", "KIND", "PRICE", "STATUS"]
        let lines = printed.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        let headerIndex = try #require(lines.firstIndex { $0.hasPrefix(header + " ") }, "\(printed)")
        let head = Array(lines[headerIndex])
        func start(_ name: String) -> Int? {
            // "PRODUCT ID" holds an "ID": the transactions' first column starts the line.
            var index = name == "ID" ? 0 : (header == "ID" ? 1 : 0)
            while index + name.count <= head.count {
                let isStart = index == 0 || head[index - 1] == " "
                let ends = index + name.count == head.count || head[index + name.count] == " "
                if isStart, ends, String(head[index..<(index + name.count)]) == name { return index }
                index += 1
            }
            return nil
        }
        let starts = all.compactMap { name in start(name).map { (name, $0) } }.sorted { $0.1 < $1.1 }
        return lines[(headerIndex + 1)...].prefix { !$0.isEmpty && !$0.hasPrefix("More:") && !$0.contains("pending (Ask to Buy") }.map { line in
            let characters = Array(line)
            return columns.map { name in
                guard let at = starts.firstIndex(where: { $0.0 == name }) else { return "" }
                let from = starts[at].1
                let to = at + 1 < starts.count ? starts[at + 1].1 : characters.count
                guard from < characters.count else { return "" }
                return String(characters[from..<min(to, characters.count)]).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    static func objects(_ value: JSON?) -> [JSON]? {
        guard case .array(let elements)? = value else { return nil }
        return elements
    }
}
