import Foundation
import Testing

/// Purchases, restore, consume and settings through the built binary; every
/// step is its own process, so each check also proves the store file kept it.
@Suite("Purchase flows (process)")
struct PurchaseFlowTests {
    func transactions(_ sandbox: Sandbox, account: String? = nil) async throws -> [[String: Any]] {
        let run = try await sandbox.storefront(["transactions", "--json"] + (account.map { ["--account", $0] } ?? []))
        run.expect(exit: 0)
        return try run.jsonObject().objects("transactions")
    }

    func entitlements(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        let run = try await sandbox.storefront("entitlements", "--json")
        run.expect(exit: 0)
        return try run.jsonObject().objects("entitlements")
    }

    func product(_ sandbox: Sandbox, _ id: String) async throws -> [String: Any] {
        let run = try await sandbox.storefront("products", "--json")
        run.expect(exit: 0)
        return try #require(try run.jsonObject().objects("products").first("id", id))
    }

    @Test func buyJSONReportsSuccessWithTheTransaction() async throws {
        let sandbox = try Sandbox()
        let before = Date()
        let run = try await sandbox.storefront("buy", Demo.swiftShopping, "--json")
        run.expect(exit: 0)
        let document = try run.jsonObject()
        #expect(document["result"] as? String == "success")
        let transaction = try #require(document["transaction"] as? [String: Any], "\(run)")
        #expect(transaction["productID"] as? String == Demo.swiftShopping)
        #expect(transaction["productType"] as? String == "nonConsumable")
        #expect(transaction["purchasedQuantity"] as? Int == 1)
        #expect(transaction["price"] as? String == "0.99")
        #expect(transaction["ownershipType"] as? String == "purchased")
        let id = try #require(transaction["id"] as? Int)
        #expect(transaction["originalID"] as? Int == id)
        #expect(transaction["expirationDate"] == nil)
        #expect(transaction["revocationDate"] == nil)

        let text = try #require(transaction["purchaseDate"] as? String)
        let date = try Date(text, strategy: Date.ISO8601FormatStyle())
        #expect(date.timeIntervalSince(before) > -2 && date.timeIntervalSince(before) < 120, "\(text)")
        #expect(transaction["originalPurchaseDate"] as? String == text)
    }

    @Test func humanBuySaysWhatWasBoughtAndForHowMuch() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("buy", Demo.coins, "--quantity", "3")
        run.expect(exit: 0)
        #expect(run.stdout.contains("100 Coins"), "\(run)")
        #expect(run.stdout.contains("$2.97"), "three coins packs at $0.99:\n\(run)")
    }

    @Test func aPurchaseSurvivesARestartAndIsSeenByTheNextProcess() async throws {
        let sandbox = try Sandbox()
        let buy = try await sandbox.storefront("buy", Demo.swiftShopping, "--json")
        buy.expect(exit: 0)
        let bought = try #require(try buy.jsonObject()["transaction"] as? [String: Any])
        #expect(FileManager.default.fileExists(atPath: sandbox.store))

        let history = try await transactions(sandbox)
        #expect(history.count == 1)
        #expect(history.first?["id"] as? Int == bought["id"] as? Int)
        #expect(history.first?["productID"] as? String == Demo.swiftShopping)
        #expect(history.first?["purchaseDate"] as? String == bought["purchaseDate"] as? String)

        let owned = try await entitlements(sandbox)
        #expect(owned.map { $0["productID"] as? String } == [Demo.swiftShopping])
        #expect(try await product(sandbox, Demo.swiftShopping)["owned"] as? Bool == true)
        #expect(try await product(sandbox, Demo.iPhoneRage)["owned"] as? Bool == false)

        let table = try await sandbox.storefront("products")
        let row = try #require(table.stdout.split(separator: "\n").first { $0.contains("Swift Shopping") })
        #expect(row.contains("Owned"), "\(table)")
    }

    @Test func transactionsAreNewestFirst() async throws {
        let sandbox = try Sandbox()
        for id in [Demo.swiftShopping, Demo.coins, Demo.seasonPass] {
            try await sandbox.storefront("buy", id).expect(exit: 0)
        }
        // Transaction.all: the finished consumable is left out (SKIncludeConsumableInAppPurchaseHistory is off).
        let history = try await transactions(sandbox)
        #expect(history.map { $0["productID"] as? String } == [Demo.seasonPass, Demo.swiftShopping])
        let ids = history.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted(by: >))
        let pass = try #require(history.first)
        #expect(pass["productType"] as? String == "nonRenewable")
        #expect(pass["expirationDate"] == nil, "Apple gives a non-renewing subscription no expiresDate")

        try await sandbox.storefront("settings", "set", "includeConsumablesInHistory", "true").expect(exit: 0)
        #expect(try await transactions(sandbox).map { $0["productID"] as? String } == [Demo.seasonPass, Demo.coins, Demo.swiftShopping])
    }

    @Test func aSubscriptionStartsWithItsFreeTrialAndExpires() async throws {
        let sandbox = try Sandbox()
        let human = try await sandbox.storefront("buy", Demo.monthly)
        human.expect(exit: 0)
        #expect(human.stdout.contains("free trial"), "\(human)")

        let history = try await transactions(sandbox)
        let trial = try #require(history.first)
        #expect(trial["productType"] as? String == "autoRenewable")
        #expect(trial["offerType"] as? String == "introductory")
        #expect(trial["price"] as? String == "0")
        #expect(trial["subscriptionGroupID"] as? String == "premium")
        let start = try Date(try #require(trial["purchaseDate"] as? String), strategy: Date.ISO8601FormatStyle())
        let end = try Date(try #require(trial["expirationDate"] as? String), strategy: Date.ISO8601FormatStyle())
        #expect(end.timeIntervalSince(start) == 7 * 24 * 3600, "a one-week trial (P1W)")
        #expect(try await entitlements(sandbox).map { $0["productID"] as? String } == [Demo.monthly])

        // Already subscribed: no second charge, no second transaction.
        let again = try await sandbox.storefront("buy", Demo.monthly, "--json")
        again.expect(exit: 0)
        #expect(try again.jsonObject()["alreadyOwned"] as? Bool == true)
        #expect(try await transactions(sandbox).count == 1)
    }

    @Test func buyingAnOwnedNonConsumableAddsNoTransaction() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.storefront("buy", Demo.swiftShopping, "--json")
        first.expect(exit: 0)
        let firstID = try #require((try first.jsonObject()["transaction"] as? [String: Any])?["id"] as? Int)

        let again = try await sandbox.storefront("buy", Demo.swiftShopping, "--json")
        again.expect(exit: 0)
        let document = try again.jsonObject()
        #expect(document["result"] as? String == "success")
        #expect(document["alreadyOwned"] as? Bool == true)
        #expect((document["transaction"] as? [String: Any])?["id"] as? Int == firstID)

        let human = try await sandbox.storefront("buy", Demo.swiftShopping)
        human.expect(exit: 0)
        #expect(human.stdout.contains("Restored Swift Shopping for free: the account owns it already (transaction \(firstID))."), "\(human)")

        #expect(try await transactions(sandbox).count == 1)
    }

    @Test func restoreAfterResettingTheAppBringsPurchasesBack() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await sandbox.storefront("buy", Demo.coins, "-q", "2").expect(exit: 0)

        let reset = try await sandbox.storefront("reset", "app")
        reset.expect(exit: 0)
        // The app forgot it owns it; the App Store did not.
        #expect(try await product(sandbox, Demo.swiftShopping)["owned"] as? Bool == false)
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 0)
        #expect(try await entitlements(sandbox).map { $0["productID"] as? String } == [Demo.swiftShopping])

        let restore = try await sandbox.storefront("restore", "--json")
        restore.expect(exit: 0)
        let restored = try restore.jsonObject()
        #expect(restored["count"] as? Int == 1)
        #expect(restored.objects("restored").map { $0["productID"] as? String } == [Demo.swiftShopping])

        #expect(try await product(sandbox, Demo.swiftShopping)["owned"] as? Bool == true)
        // Consumables are never restored, and restoring adds no transaction (Transaction.all leaves the finished coins out).
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 0)
        #expect(try await transactions(sandbox).count == 1)
    }

    @Test func resetAccountForgetsTheHistoryAndResetAllEverything() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await sandbox.storefront(["--account", "other@qa", "buy", Demo.goPro]).expect(exit: 0)

        try await sandbox.storefront("reset", "account").expect(exit: 0)
        #expect(try await transactions(sandbox).isEmpty)
        #expect(try await entitlements(sandbox).isEmpty)
        let restore = try await sandbox.storefront("restore", "--json")
        #expect(try restore.jsonObject()["count"] as? Int == 0)
        // Another account is untouched by `reset account`...
        #expect(try await transactions(sandbox, account: "other@qa").count == 1)

        // ...and gone after `reset all`.
        try await sandbox.storefront("reset", "all").expect(exit: 0)
        #expect(try await transactions(sandbox, account: "other@qa").isEmpty)
    }

    @Test func accountsHaveTheirOwnHistories() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront(["--account", "alice", "buy", Demo.swiftShopping]).expect(exit: 0)
        #expect(try await transactions(sandbox, account: "alice").count == 1)
        #expect(try await transactions(sandbox, account: "bob").isEmpty)
        #expect(try await transactions(sandbox).isEmpty, "the default account bought nothing")
    }

    @Test func consumeTakesFromTheBalance() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins, "--quantity", "3").expect(exit: 0)
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 3)

        let consume = try await sandbox.storefront("consume", Demo.coins, "--quantity=2", "--json")
        consume.expect(exit: 0)
        let document = try consume.jsonObject()
        #expect(document["balance"] as? Int == 1)
        #expect(document["consumed"] as? Int == 2)

        let tooMany = try await sandbox.storefront("consume", Demo.coins, "-q", "2")
        tooMany.expect(exit: 1)
        #expect(tooMany.stderr.contains("insufficientBalance"), "\(tooMany)")
        #expect(tooMany.stdout.isEmpty)
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 1)

        let human = try await sandbox.storefront("consume", Demo.coins)
        human.expect(exit: 0)
        #expect(human.stdout == "Consumed 1 × 100 Coins: the balance is 0.\n", "\(human)")

        let notConsumable = try await sandbox.storefront("consume", Demo.swiftShopping)
        notConsumable.expect(exit: 1)
        #expect(notConsumable.stderr.contains("notConsumable"), "\(notConsumable)")
    }

    @Test func consumablesCanBeBoughtAgainAndAgain() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        try await sandbox.storefront("buy", Demo.coins, "-q", "2").expect(exit: 0)
        #expect(try await transactions(sandbox).isEmpty, "finished consumables are not in Transaction.all")
        try await sandbox.storefront("settings", "set", "includeConsumablesInHistory", "true").expect(exit: 0)
        let history = try await transactions(sandbox)
        #expect(history.map { $0["purchasedQuantity"] as? Int } == [2, 1])
        #expect(history.first?["price"] as? String == "1.98")
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 3)
    }

    @Test("canMakePayments false: exit 1 with StoreKit 2's Product.PurchaseError.purchaseNotAllowed, nothing charged")
    func purchaseNotAllowedFailsWithExitOneAndChargesNothing() async throws {
        let sandbox = try Sandbox()
        let set = try await sandbox.storefront("settings", "set", "canMakePayments", "false")
        set.expect(exit: 0)
        #expect(set.stdout.contains("canMakePayments = false"), "\(set)")

        let settings = try await sandbox.storefront("settings", "--json")
        let values = try #require(try settings.jsonObject()["settings"] as? [String: Any])
        #expect(values["canMakePayments"] as? String == "false")

        let buy = try await sandbox.storefront("buy", Demo.swiftShopping)
        buy.expect(exit: 1)
        #expect(buy.stderr.contains("Product.PurchaseError.purchaseNotAllowed"), "\(buy)")
        #expect(buy.stdout.isEmpty, "\(buy)")

        let json = try await sandbox.storefront("buy", Demo.coins, "--json")
        json.expect(exit: 1)
        let error = try #require(try json.jsonObject()["error"] as? [String: Any], "\(json)")
        #expect(error["name"] as? String == "purchaseNotAllowed")
        #expect(error["domain"] as? String == "Product.PurchaseError")
        #expect(error["skErrorCode"] as? Int == 4)
        #expect(json.stderr.contains("purchaseNotAllowed"))
        // StoreKit 1's name only in the event log.
        let log = try await sandbox.storefront("log")
        #expect(log.stdout.contains("SKError.paymentNotAllowed"), "\(log)")

        #expect(try await transactions(sandbox).isEmpty)
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 0)

        // The setting is per account.
        try await sandbox.storefront(["--account", "parent@qa", "buy", Demo.swiftShopping]).expect(exit: 0)
        // And switching it back on lets the account buy.
        try await sandbox.storefront("settings", "set", "canMakePayments", "true").expect(exit: 0)
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        #expect(try await transactions(sandbox).count == 1)
    }

    @Test func unknownProductsAndBadQuantitiesFailWithTheirStoreKitNames() async throws {
        let sandbox = try Sandbox()
        let unknown = try await sandbox.storefront("buy", "com.example.nope")
        unknown.expect(exit: 1)
        #expect(unknown.stderr.contains("productUnavailable"), "\(unknown)")

        let quantity = try await sandbox.storefront("buy", Demo.swiftShopping, "--quantity", "2")
        quantity.expect(exit: 1)
        #expect(quantity.stderr.contains("invalidQuantity"), "\(quantity)")

        let tooMany = try await sandbox.storefront("buy", Demo.coins, "--quantity", "11")
        tooMany.expect(exit: 1)
        #expect(tooMany.stderr.contains("invalidQuantity"), "\(tooMany)")

        #expect(try await transactions(sandbox).isEmpty)
    }

    @Test func theLogRecordsStoreKitStates() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await sandbox.storefront("reset", "app").expect(exit: 0)
        try await sandbox.storefront("restore").expect(exit: 0)
        let run = try await sandbox.storefront("log", "--json")
        run.expect(exit: 0)
        let states = try run.jsonObject().objects("events").map { $0["state"] as? String }
        #expect(states == ["purchasing", "purchased", "restored"], "\(run)")
    }

    @Test func processesBuyingAtTheSameTimeAllSucceed() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("products").expect(exit: 0)  // the store file exists
        let runs = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for _ in 0..<4 {
                group.addTask { try await sandbox.storefront("buy", Demo.coins) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs { run.expect(exit: 0) }
        try await sandbox.storefront("settings", "set", "includeConsumablesInHistory", "true").expect(exit: 0)
        #expect(try await transactions(sandbox).count == 4)
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 4)
    }

    @Test func processesCreatingTheStoreAtTheSameTimeAllSucceed() async throws {
        // The first use of a store file by several CI jobs at once: none may find a
        // half-made file and refuse it, and every purchase must land.
        let sandbox = try Sandbox()
        let runs = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for _ in 0..<8 {
                group.addTask { try await sandbox.storefront("buy", Demo.coins) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs { run.expect(exit: 0) }
        try await sandbox.storefront("settings", "set", "includeConsumablesInHistory", "true").expect(exit: 0)
        #expect(try await transactions(sandbox).count == 8)
        #expect(try await product(sandbox, Demo.coins)["balance"] as? Int == 8)
        // Nothing but the store file (and SQLite's WAL files) is left beside it: the catalog it ran with is kept in it.
        let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder.path)
        #expect(Set(files).isSubset(of: ["home", "store.sqlite", "store.sqlite-shm", "store.sqlite-wal"]),
                "\(files)")
    }
}
