import Foundation
import Scenarios
import StoreEngine
import StorefrontCLI
import StorefrontKit
import StorefrontUI
import TerminalCore

/// The comparison of every front end's view of one store at one time, shared by the hand-picked
/// states (``ParityTests``) and the generated walks (``ParityWalkTests``): the CLI's `products`,
/// `transactions` and `status` (text and `--json`), the paywall's rendered rows, StorefrontKit
/// (`currentEntitlements`, statuses, renewal info, `Transaction.all`) and a scenario's `expect`
/// lines, each against the engine's facts.
final class ParityCheck {
    /// How many single facts were compared.
    private(set) var comparisons = 0
    /// What disagreed, each in a sentence naming the front end and the product or transaction.
    private(set) var disagreements: [String] = []

    /// A fact one front end must agree on.
    func check(_ agrees: Bool, _ what: @autoclosure () -> String) {
        comparisons += 1
        if !agrees { disagreements.append(what()) }
    }

    /// A value a front end must show at all; a missing one is a disagreement and ends the comparison.
    func require<Value>(_ value: Value?, _ what: @autoclosure () -> String) throws -> Value {
        comparisons += 1
        guard let value else {
            disagreements.append(what())
            throw Missing()
        }
        return value
    }

    struct Missing: Error {}

    /// The paywall's and the scenario's screen width.
    static let columns = 320

    /// Compares every front end on the store at `path`, read at `clock`, as `store`'s account.
    /// The app launches first (delivering what arrived), as a tester opening it would.
    /// `scenarioPath` names the scenario of `expect` lines run on it (a path only: nothing is written);
    /// nil leaves the scenario and `transactions` without a catalog out (a scenario's `expect` lines
    /// read the store once each: the walks run them at a walk's last move only, unless
    /// `STOREFRONT_PARITY_SCENARIOS=each`).
    /// Returns false when a front end was missing something (the rest was not compared).
    @discardableResult
    func compare(_ store: Store, path: String, catalog: Catalog, clock: @escaping @Sendable () -> Date,
                 scenarioPath: String?) async throws -> Bool {
        do {
            try await compareAll(store, path: path, catalog: catalog, clock: clock, scenarioPath: scenarioPath)
            return true
        } catch is Missing {
            return false
        }
    }

    private func compareAll(_ store: Store, path: String, catalog: Catalog, clock: @escaping @Sendable () -> Date,
                            scenarioPath: String?) async throws {
        let commands = CLI.scenarioCommandLine
        _ = try await commands.launch(store)

        // The engine's facts, which every front end translates.
        let snapshot = try await store.app.snapshot()
        let standings = Dictionary(uniqueKeysWithValues: snapshot.products.map { ($0.id, snapshot.standing(of: $0)) })
        let now = try await store.appStore.now()
        let history = try await store.appStore.transactions()

        // The CLI: `products`, `transactions` and `status`, each as text and as JSON.
        let products = try await commands.run(["products"], catalog: catalog, storePath: path, now: clock)
        let productRows = Self.table(products.lines, header: "PRODUCT ID", columns: ["PRODUCT ID", "PRICE", "STATUS"])
        let productJSON = try require(Self.objects(products.json?["products"]), "products --json: no products in \(products.lines)")
        let listing = try await commands.run(["transactions"], catalog: catalog, storePath: path, now: clock)
        let transactionRows = Self.table(listing.lines, header: "ID", columns: ["ID", "PRICE", "STATUS"])
        let transactionJSON = try require(Self.objects(listing.json?["transactions"]), "transactions --json: none in \(listing.lines)")
        // No catalog: the same history, the same prices and states.
        // (With the scenario: the walks make both at a walk's last move only.)
        if scenarioPath != nil {
            let bare = try await commands.run(["transactions"], catalog: .absent, storePath: path, now: clock)
            let bareRows = Self.table(bare.lines, header: "ID", columns: ["ID", "PRICE", "STATUS"])
            check(bareRows == transactionRows, "transactions without a catalog: \(bareRows) against \(transactionRows)")
        }
        let status = try await commands.run(["status"], catalog: catalog, storePath: path, now: clock)

        // The paywall: its rows as drawn.
        // Wide enough for the longest status the walks make whole (an offer for the next renewal
        // and a price increase waiting: some 150 columns): the paywall cuts what does not fit.
        var paywall = StorefrontUI.State(size: Size(columns: Self.columns, rows: 60), account: store.account, storePath: path,
                                         paywall: catalog.paywall)
        // The launch's load: its effects are the App Store's messages (shown or held), nothing else —
        // no store command, no purchase, no second load (the paywall on this store would do them).
        let launched = update(&paywall, .loaded(snapshot))
        for effect in launched {
            let message = switch effect {
            case .displayMessage, .deferMessage: true
            default: false
            }
            check(message, "the paywall's first load asked for \(effect)")
        }
        let screen = render(paywall).lines

        // StorefrontKit, as an app calls it.
        let kitStore = try Store(catalog: catalog, path: path, now: clock)
        let groups = Array(Set(snapshot.products.compactMap { $0.subscription?.subscriptionGroupID })).sorted()
        let kit = try await StoreContext.$current.withValue(StoreContext(store: kitStore)) {
            try await StoreKitReading.read(groups: groups, products: snapshot.products.map(\.id))
        }

        // Products: the CLI's text, its JSON, the paywall's row and StorefrontKit agree with the standing.
        var expectations: [String] = []
        for product in snapshot.products {
            let standing = try require(standings[product.id], "\(product.id): no standing")
            let words = standing.text(for: product)
            let price = standing.displayPrice ?? "Not available"
            let isChecked = product.type != .consumable && (standing.ownership == .owned || standing.ownership == .familyShared)
            let isEntitled = product.type != .consumable && standing.ownership != .none
            let row = try require(productRows.first { $0[0] == product.id }, "\(product.id) not in products: \(products.lines)")
            check(row[1] == price && row[2] == words, "\(product.id): products prints \(row[1...]), the engine says \(price) \"\(words)\"")
            let json = try require(productJSON.first { $0["id"] == .string(product.id) }, "\(product.id) not in products --json")
            check(json["status"] == .string(words), "\(product.id): products --json status \(json["status"].map { "\($0)" } ?? "none"), the engine says \"\(words)\"")
            if product.type != .consumable {
                check(json["owned"] == .bool(isChecked), "\(product.id): products --json owned is not \(isChecked)")
            }
            let drawn = try require(screen.first { $0.contains(product.displayName) }, "\(product.displayName) not on the paywall: \(screen)")
            check(drawn.contains(paywall.glyphs.check) == isChecked, "\(product.id): the paywall's checkmark is not \(isChecked): \(drawn)")
            check(drawn.contains(price), "\(product.id): the paywall's price is not \(price): \(drawn)")
            check(words.isEmpty || drawn.contains(words), "\(product.id): the paywall's status is not \"\(words)\": \(drawn)")
            if product.type != .consumable {
                check(kit.entitled.contains(product.id) == isEntitled,
                      "\(product.id): StorefrontKit's currentEntitlements \(kit.entitled.contains(product.id) ? "has" : "lacks") it, the engine's standing is \(standing.ownership)")
                expectations.append("expect \(isChecked ? "" : "not ")owned \(product.id)")
                expectations.append("expect \(isEntitled ? "" : "not ")entitled \(product.id)")
            }
            if !words.isEmpty { expectations.append("expect screen \"\(words)\"") }
            if let info = product.subscription {
                // The offers' prices as the storefront writes them, in StorefrontKit as in the engine.
                let offers = (info.introductoryOffer.map { [$0] } ?? []) + info.promotionalOffers + info.winBackOffers
                check(kit.offerPrices[product.id] == offers.map(\.displayPrice), "\(product.id): StorefrontKit's offer prices \(kit.offerPrices[product.id] ?? [])")
                if snapshot.storefront.countryCode == "DEU", !offers.isEmpty {
                    // An offer in euros as Germany writes them ("29,99 €"), not "€29.99".
                    check(kit.offerPrices[product.id]?.allSatisfy { $0.hasSuffix("€") } == true, "\(product.id): offer prices in Germany \(kit.offerPrices)")
                }
            }
        }

        // Subscription groups: StorefrontKit's state and renewal info, and `status` (text and
        // JSON), are the snapshot's.
        let statusRows = Self.table(status.lines, header: "GROUP", columns: ["GROUP", "STATE", "PRODUCT", "AUTO-RENEW", "NOTES"])
        let statusJSON = Self.objects(status.json?["statuses"]) ?? []
        for group in groups {
            let subscription = snapshot.subscriptions[group]
            let state = subscription?.state.rawValue
            check(kit.states[group] == state, "\(group): StorefrontKit's status \(kit.states[group] ?? "none"), the engine's \(state ?? "none")")
            expectations.append("expect status \(group) \(state ?? "none")")
            guard let subscription else { continue }
            let info = subscription.renewalInfo
            let renewal = kit.renewals[group]
            check(renewal?.willAutoRenew == info.willAutoRenew && renewal?.preference == info.autoRenewPreference,
                  "\(group): StorefrontKit's renewal info \(String(describing: renewal)), the engine's \(info.willAutoRenew) \(info.autoRenewPreference)")
            let row = try require(statusRows.first { $0[0] == group }, "\(group) not in status: \(status.lines)")
            check(row[1] == subscription.state.rawValue && row[2] == subscription.transaction.productID
                  && row[3] == (info.willAutoRenew ? "on" : "off"), "\(group): status prints \(row), the engine says \(subscription.state.rawValue)")
            let json = try require(statusJSON.first { $0["subscriptionGroupID"] == .string(group) }, "\(group) not in status --json")
            check(json["state"] == .string(subscription.state.rawValue), "\(group): status --json state \(json["state"].map { "\($0)" } ?? "none")")
            // The plan that follows: the standing's scheduled change, `status`'s "next:".
            let current = try require(snapshot.products.first { $0.id == subscription.transaction.productID },
                                      "\(group): the current product \(subscription.transaction.productID) is not in the catalog")
            let next = standings[current.id]?.scheduledChange?.toProductID
            let printedNext = row[4].components(separatedBy: ", ").first { $0.hasPrefix("next: ") }.map { String($0.dropFirst(6)) }
            check(printedNext == next, "\(group): status says next \(printedNext ?? "nothing"), the paywall's row \(next ?? "nothing") (\(row[4]))")
            if let offer = subscription.renewalOfferText {
                // An offer waiting for the next renewal: `status --json` has it, `status` and the paywall's row say it.
                check(row[4].contains(offer), "\(group): status does not say \"\(offer)\": \(row[4])")
                check(standings[current.id]?.text(for: current).contains(offer) == true, "\(group): the paywall's row does not say \"\(offer)\"")
            }
            if let increase = subscription.priceIncreaseText {
                // A price increase waiting: `status --json`'s priceIncreaseStatus, said by `status` and the paywall's row.
                check(row[4].contains(increase), "\(group): status does not say \"\(increase)\": \(row[4])")
                check(standings[current.id]?.text(for: current).contains(increase) == true, "\(group): the paywall's row does not say \"\(increase)\"")
            }
            if subscription.renewalOfferText == nil, let offer = info.offerID, subscription.state == .subscribed, info.willAutoRenew {
                check(false, "\(group): status --json has the next renewal's offer \(offer), the engine's words do not")
            }
        }

        // Transactions: the CLI's text and JSON say the engine's state and price; StorefrontKit's
        // price and currency write the same price.
        // `transactions` lists what the app sees, as StorefrontKit's `Transaction.all`.
        let listed = Set(transactionRows.compactMap { Int64($0[0]) })
        let seen = try await store.app.transactions().map(\.id)
        check(listed == Set(seen), "transactions lists \(listed.sorted()), the app's history holds \(seen.sorted())")
        check(listed == Set(kit.prices.keys), "transactions lists \(listed.sorted()), StorefrontKit's Transaction.all \(kit.prices.keys.sorted())")
        for row in transactionRows {
            let transaction = try require(history.first { String($0.id) == row[0] }, "transaction \(row[0]) is not in the history")
            let subscription = transaction.subscriptionGroupID.flatMap { snapshot.subscriptions[$0] }
            let state = TransactionState(of: transaction, at: now, subscription: subscription)
                .text(refundRequest: snapshot.refundRequests[transaction.id]?.status)
            check(row[1] == transaction.displayPrice && row[2] == state, "transaction \(transaction.id): transactions prints \(row[1...]), the engine says \(transaction.displayPrice) \(state)")
            let json = try require(transactionJSON.first { $0["id"] == .integer(transaction.id) }, "transaction \(transaction.id) not in transactions --json")
            check(json["state"] == .string(state), "transaction \(transaction.id): transactions --json state \(json["state"].map { "\($0)" } ?? "none"), the engine's \(state)")
            guard let bought = kit.prices[transaction.id] else { continue }
            let price = try require(bought.price, "transaction \(transaction.id): no price in StorefrontKit")
            let currency = try require(bought.currency, "transaction \(transaction.id): no currency in StorefrontKit")
            check(PriceText.display(price, currency: currency, storefront: bought.storefront) == row[1],
                  "transaction \(transaction.id): StorefrontKit's price \(price) \(currency), transactions prints \(row[1])")
        }

        // A scenario's `expect` lines, run on this store at this time, pass.
        guard let scenarioPath else { return }
        // A screen as large as the paywall's above, so that every row shows.
        let start = clock().formatted(.iso8601)
        let text = (["catalog \(Repository.catalog)", "start \(start)", "size \(Self.columns)x60"] + expectations).joined(separator: "\n")
        let scenario = try Scenario.parse(text, path: scenarioPath, commands: commands)
        let result = await (try ScenarioRun(scenario: scenario, catalog: catalog, commands: commands, storePath: path)).run(keep: false)
        for step in result.steps {
            check(step.status == .passed, "scenario line \(step.line) \(step.source): \(step.status), expected \(step.expected ?? ""), found \(step.found ?? "")")
        }
        check(result.steps.count == expectations.count, "the scenario ran \(result.steps.count) of \(expectations.count) lines")
    }

    // MARK: - Reading the CLI's output

    /// The columns of each table the CLI prints, by its first header.
    static let headers: [String: [String]] = [
        "ID": ["ID", "PURCHASED", "PRODUCT ID", "QTY", "PRICE", "STATUS", "EXPIRES", "NOTES"],
        "PRODUCT ID": ["PRODUCT ID", "NAME", "KIND", "PRICE", "STATUS"],
        "GROUP": ["GROUP", "STATE", "PRODUCT", "AUTO-RENEW", "RENEWS / EXPIRED", "NOTES"],
    ]

    /// The rows of the text table whose header starts with `header`: the cells of `columns`
    /// (each from its header's column to the next named one's), trimmed.
    static func table(_ printed: [String], header: String, columns: [String]) -> [[String]] {
        let all = headers[header] ?? []
        let lines = printed.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        // No table: nothing to list ("No transactions for …"), which the callers compare as no rows.
        guard let headerIndex = lines.firstIndex(where: { $0.hasPrefix(header + " ") }) else { return [] }
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
