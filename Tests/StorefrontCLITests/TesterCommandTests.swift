import Foundation
import StoreEngine
@testable import StorefrontCLI
import Testing

// The tester's commands (Ask to Buy, interrupted purchases, refunds, outcomes, simulated
// conditions, accounts) on the command line: their parsing in-process, then the built binary
// as separate processes (the app, the parent and the tester are different processes sharing
// one store file).

// MARK: - Parsing

@Suite("Tester commands: argument parsing")
struct TesterCommandArgumentsTests {
    func parse(_ arguments: String...) throws -> Command {
        try Invocation.parse(arguments).command
    }

    func usageError(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) -> UsageError? {
        expectUsageError(arguments, sourceLocation: sourceLocation)
    }

    @Test func buyTakesAnOutcome() throws {
        #expect(try parse("buy", "p", "--outcome", "cancel") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, outcome: .cancel))))
        #expect(try parse("buy", "p", "--outcome=askToBuy") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, outcome: .askToBuy))))
        #expect(try parse("--outcome", "interrupt", "buy", "p") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, outcome: .interrupt))))
        #expect(try parse("buy", "p", "-q", "2", "--outcome", "networkError")
                == .run(AnyCommand(BuyCommand(productID: "p", quantity: 2, outcome: .fail(.networkError)))))
        #expect(try parse("buy", "p", "--outcome", "succeed") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, outcome: .succeed))))
        #expect(try parse("buy", "p") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, outcome: nil))))
    }

    @Test func aBadOutcomeIsAUsageErrorNamingTheChoices() {
        let error = usageError("buy", "p", "--outcome", "invalidSignature")
        #expect(error?.command == "buy")
        #expect(error?.description.contains("\"invalidSignature\"") == true)
        #expect(error?.description.contains("askToBuy") == true)
        #expect(error?.description.contains("networkError") == true)
        #expect(usageError("buy", "p", "--outcome")?.description.contains("needs a value") == true)
    }

    @Test func buyOutside() throws {
        #expect(try parse("buy", "p", "--outside") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, outside: true))))
        #expect(try parse("--outside", "buy", "coins", "--quantity", "3") == .run(AnyCommand(BuyCommand(productID: "coins", quantity: 3, outside: true))))
        #expect(usageError("buy", "p", "--outside", "--outcome", "cancel")?.description.contains("not both") == true)
        #expect(usageError("buy", "p", "--outside=yes")?.description.contains("takes no value") == true)
    }

    @Test func outcomeOutsideOnceAndReasonBelongToTheirCommands() {
        #expect(usageError("products", "--outside")?.description == "products takes no --outside")
        #expect(usageError("consume", "c", "--outcome", "cancel")?.description == "consume takes no --outcome")
        #expect(usageError("buy", "p", "--once")?.description == "buy takes no --once")
        #expect(usageError("settings", "--once")?.command == "settings")
        #expect(usageError("approve", "5", "--reason", "other")?.description == "approve takes no --reason")
        #expect(usageError("refund", "5", "--outcome", "cancel")?.description == "refund takes no --outcome")
    }

    @Test(arguments: [
        ("approve", Command.run(AnyCommand(ApproveCommand(requestID: 2_000_000_001)))),
        ("decline", .run(AnyCommand(DeclineCommand(requestID: 2_000_000_001)))),
        ("resolve", .run(AnyCommand(ResolveCommand(requestID: 2_000_000_001)))),
        ("delete-transaction", .run(AnyCommand(DeleteTransactionCommand(transactionID: 2_000_000_001)))),
        ("refund", .run(AnyCommand(RefundCommand(transactionID: 2_000_000_001, reason: .other)))),
    ])
    func transactionCommands(name: String, command: Command) throws {
        #expect(try Invocation.parse([name, "2000000001"]).command == command)
        #expect(try Invocation.parse([name, "2000000001", "--json"]).json)
        for bad in [[name], [name, "0"], [name, "-1"], [name, "abc"], [name, "1", "2"], [name, "1.5"]] {
            do {
                let parsed = try Invocation.parse(bad)
                Issue.record("\(bad) parsed as \(parsed.command)")
            } catch {
                #expect(error.command == name, "\(bad)")
            }
        }
        #expect(try Invocation.parse([name, "--help"]).command == .run(AnyCommand(HelpCommand(topic: name))))
    }

    @Test func refundTakesAReason() throws {
        #expect(try parse("refund", "7", "--reason", "developerIssue") == .run(AnyCommand(RefundCommand(transactionID: 7, reason: .developerIssue))))
        #expect(try parse("refund", "--reason=other", "7") == .run(AnyCommand(RefundCommand(transactionID: 7, reason: .other))))
        #expect(try parse("refund", "7", "--prorated", "33.333") == .run(AnyCommand(RefundCommand(transactionID: 7, reason: .other, share: .prorated(milliunits: 33_333)))))
        #expect(try parse("refund", "7", "--prorated=remaining") == .run(AnyCommand(RefundCommand(transactionID: 7, reason: .other, share: .timeRemaining))))
        let error = usageError("refund", "7", "--reason", "fraud")
        #expect(error?.description.contains("developerIssue or other") == true)
        for share in ["100", "0", "12.3456", "half"] {
            #expect(usageError("refund", "7", "--prorated", share)?.description.contains("--prorated takes a percentage") == true, "\(share)")
        }
    }

    @Test func accounts() throws {
        #expect(try parse("accounts") == .run(AnyCommand(AccountsCommand.list)))
        #expect(try parse("accounts", "create", "qa@x") == .run(AnyCommand(AccountsCommand.create(name: "qa@x"))))
        #expect(try parse("accounts", "switch", "qa@x") == .run(AnyCommand(AccountsCommand.switchTo(name: "qa@x"))))
        for bad in [["accounts", "create"], ["accounts", "switch"], ["accounts", "delete", "a"],
                    ["accounts", "create", "a", "b"], ["accounts", "create", ""], ["accounts", "qa@x"]] {
            do {
                let parsed = try Invocation.parse(bad)
                Issue.record("\(bad) parsed as \(parsed.command)")
            } catch {
                #expect(error.command == "accounts", "\(bad)")
            }
        }
    }

    @Test func settingsSetOnce() throws {
        #expect(try parse("settings", "set", "purchaseError", "networkError", "--once")
                == .run(AnyCommand(SettingsCommand.set(name: "purchaseError", value: "networkError", once: true))))
        #expect(try parse("--once", "settings", "set", "purchaseError", "networkError")
                == .run(AnyCommand(SettingsCommand.set(name: "purchaseError", value: "networkError", once: true))))
        #expect(try parse("settings", "set", "latency", "250") == .run(AnyCommand(SettingsCommand.set(name: "latency", value: "250", once: false))))
        #expect(usageError("settings", "set", "purchaseError", "networkError", "--once=true")?
            .description.contains("takes no value") == true)
    }
}

// MARK: - The binary

/// Ask to Buy, refunds, outcomes, settings and accounts through the built binary:
/// each step its own process, as the app, a parent and a tester would be.
@Suite("Tester commands: Ask to Buy, refunds, outcomes, simulated conditions and accounts (process)")
struct TesterCommandTests {
    /// `transactions --pending --json`'s requests.
    func requests(_ sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        let run = try await sandbox.storefront("transactions", "--pending", "--json")
        run.expect(exit: 0, sourceLocation: sourceLocation)
        return try run.jsonObject(sourceLocation: sourceLocation).objects("requests")
    }

    func transactions(_ sandbox: Sandbox, _ extra: String..., sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [[String: Any]] {
        let run = try await sandbox.storefront(["transactions", "--json"] + extra)
        run.expect(exit: 0, sourceLocation: sourceLocation)
        return try run.jsonObject(sourceLocation: sourceLocation).objects("transactions")
    }

    func product(_ sandbox: Sandbox, _ id: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> (product: [String: Any], run: RunResult) {
        let run = try await sandbox.storefront("products", "--json")
        run.expect(exit: 0, sourceLocation: sourceLocation)
        let product = try #require(try run.jsonObject().objects("products").first("id", id), "\(run)",
                                   sourceLocation: sourceLocation)
        return (product, run)
    }

    /// `buy ... --json` → the document and the id of its transaction (or, pending, of its request).
    func buy(_ sandbox: Sandbox, _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> (document: [String: Any], id: Int) {
        let run = try await sandbox.storefront(["buy"] + arguments + ["--json"])
        run.expect(exit: 0, sourceLocation: sourceLocation)
        let document = try run.jsonObject(sourceLocation: sourceLocation)
        // A pending purchase carries a request, not a transaction: that appears once approved.
        let key = document["result"] as? String == "pending" ? "request" : "transaction"
        #expect((key == "request") == (document["transaction"] == nil), "\(run)", sourceLocation: sourceLocation)
        let transaction = try #require(document[key] as? [String: Any], "\(run)", sourceLocation: sourceLocation)
        return (document, try #require(transaction["id"] as? Int, sourceLocation: sourceLocation))
    }

    func setting(_ sandbox: Sandbox, _ name: String, _ value: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws {
        try await sandbox.storefront("settings", "set", name, value).expect(exit: 0, sourceLocation: sourceLocation)
    }

    @Test func theHelpListsTheNewCommands() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["--help"])
        run.expect(exit: 0)
        for command in ["approve", "decline", "resolve", "refund", "delete-transaction", "accounts"] {
            #expect(run.stdout.contains("\n  \(command) "), "\(command):\n\(run)")
        }
        let settings = try await sandbox.run(["settings", "--help"])
        settings.expect(exit: 0)
        for name in SettingDefinition.all.map(\.name) {
            #expect(settings.stdout.contains(name), "\(name):\n\(settings)")
        }
        #expect(settings.stdout.contains("--once"))
    }

    @Test func askToBuyApprovedByASecondProcessIsDeliveredByTheNextAppCommand() async throws {
        let sandbox = try Sandbox()
        try await setting(sandbox, "askToBuy", "true")
        let (document, id) = try await buy(sandbox, Demo.swiftShopping)
        #expect(document["result"] as? String == "pending")
        #expect(document["finished"] as? Bool == false)
        let pending = try #require(document["request"] as? [String: Any])
        #expect(pending["reason"] as? String == "askToBuy")
        #expect(pending["jwsRepresentation"] == nil, "unsigned while pending")
        #expect(document["transaction"] == nil, "a pending purchase carries no transaction")

        let human = try await sandbox.storefront("buy", Demo.iPhoneRage)
        human.expect(exit: 0)
        #expect(human.stdout.contains("Ask to Buy"), "\(human)")
        // Naming this store, so that pasted elsewhere it acts on this one.
        #expect(human.stdout.contains("storefront --store \(sandbox.store) approve "), "\(human)")

        let table = try await sandbox.storefront("transactions", "--pending")
        #expect(table.stdout.contains("askToBuy"), "\(table)")
        #expect(table.stdout.contains("storefront --store \(sandbox.store) approve \(id)"), "\(table)")
        #expect(try await product(sandbox, Demo.swiftShopping).product["owned"] as? Bool == false)

        // The parent, in another process.
        let approve = try await sandbox.storefront("approve", String(id), "--json")
        approve.expect(exit: 0)
        let approved = try #require(try approve.jsonObject()["transaction"] as? [String: Any])
        #expect(approved["id"] as? Int == id)
        #expect(approved["status"] as? String == "purchased")
        #expect(approved["pendingReason"] == nil)
        #expect(approved["isFinished"] as? Bool == false)
        #expect(approved["verification"] as? String == "verified")
        #expect(approved["jwsRepresentation"] is String)
        #expect(!approve.stderr.contains("delivered"), "approving is the parent's act, not the app's:\n\(approve)")

        // Listing transactions is not the app either: still unfinished.
        let listed = try await transactions(sandbox)
        #expect(listed.first("productID", Demo.swiftShopping)?["isFinished"] as? Bool == false)
        #expect(listed.first("productID", Demo.swiftShopping)?["status"] as? String == "purchased")

        // The app's next command receives the update and delivers it.
        let (owned, run) = try await product(sandbox, Demo.swiftShopping)
        #expect(owned["owned"] as? Bool == true)
        #expect(run.stderr.contains("delivered unfinished transaction \(id)"), "\(run)")
        #expect(try await transactions(sandbox).first("productID", Demo.swiftShopping)?["isFinished"] as? Bool == true)

        let again = try await sandbox.storefront("approve", String(id))
        again.expect(exit: 1)
        #expect(again.stderr.contains("invalidTransactionState"), "\(again)")
        #expect(again.stdout.isEmpty)
    }

    @Test func aDeclinedRequestIsNeverDeliveredAndCannotBeApproved() async throws {
        let sandbox = try Sandbox()
        try await setting(sandbox, "askToBuy", "true")
        let (_, id) = try await buy(sandbox, Demo.goPro)
        let decline = try await sandbox.storefront("decline", String(id))
        decline.expect(exit: 0)
        #expect(decline.stdout.contains("declined"), "\(decline)")
        // Declined, it is neither a transaction (Transaction.all) nor a pending request any more.
        #expect(try await transactions(sandbox).isEmpty)
        #expect(try await requests(sandbox).isEmpty)
        let (goPro, run) = try await product(sandbox, Demo.goPro)
        #expect(goPro["owned"] as? Bool == false)
        #expect(!run.stderr.contains("delivered"), "\(run)")
        let approve = try await sandbox.storefront("approve", String(id), "--json")
        approve.expect(exit: 1)
        let error = try #require(try approve.jsonObject()["error"] as? [String: Any], "\(approve)")
        #expect(error["name"] as? String == "invalidTransactionState")
        #expect((error["message"] as? String)?.contains("declined") == true)
    }

    @Test func anInterruptedPurchaseIsResolvedAndThenDelivered() async throws {
        let sandbox = try Sandbox()
        try await setting(sandbox, "interruptedPurchases", "on")
        let (document, id) = try await buy(sandbox, Demo.coins, "--quantity", "2")
        #expect(document["result"] as? String == "pending")
        #expect((document["request"] as? [String: Any])?["reason"] as? String == "interrupted")
        let human = try await sandbox.storefront("buy", Demo.coins)
        #expect(human.stdout.contains("storefront --store \(sandbox.store) resolve "), "\(human)")
        #expect(try await transactions(sandbox).isEmpty, "requests are not transactions")
        #expect(try await requests(sandbox).map { $0["reason"] as? String } == ["interrupted", "interrupted"])

        // approve is for Ask to Buy only.
        let approve = try await sandbox.storefront("approve", String(id))
        approve.expect(exit: 1)
        #expect(approve.stderr.contains("pending (interrupted)"), "\(approve)")

        let resolve = try await sandbox.storefront("resolve", String(id))
        resolve.expect(exit: 0)
        #expect(resolve.stdout.contains("Resolved transaction \(id)"), "\(resolve)")
        // consume is the app: it delivers the 2 coins first, then takes one.
        let consume = try await sandbox.storefront("consume", Demo.coins, "--json")
        consume.expect(exit: 0)
        #expect(try consume.jsonObject()["balance"] as? Int == 1)
        #expect(consume.stderr.contains("delivered unfinished transaction \(id)"), "\(consume)")
    }

    @Test func aRefundTakesOwnedAwayFromProducts() async throws {
        let sandbox = try Sandbox()
        let (_, id) = try await buy(sandbox, Demo.swiftShopping)
        let before = try await sandbox.storefront("products")
        let ownedRow = try #require(before.stdout.split(separator: "\n").first { $0.contains("Swift Shopping") })
        #expect(ownedRow.contains("Owned"), "\(before)")

        let refund = try await sandbox.storefront("refund", String(id), "--reason", "developerIssue")
        refund.expect(exit: 0)
        #expect(refund.stdout.contains("Refunded transaction \(id)"), "\(refund)")
        #expect(refund.stdout.contains("developerIssue"), "\(refund)")

        let after = try await sandbox.storefront("products")
        after.expect(exit: 0)
        let row = try #require(after.stdout.split(separator: "\n").first { $0.contains("Swift Shopping") })
        #expect(!row.contains("Owned"), "\(after)")
        #expect(try await product(sandbox, Demo.swiftShopping).product["owned"] as? Bool == false)
        let entitlements = try await sandbox.storefront("entitlements", "--json")
        #expect(try entitlements.jsonObject().objects("entitlements").isEmpty)
        let refunded = try #require(try await transactions(sandbox).first)
        #expect(refunded["revocationDate"] is String)
        #expect(refunded["revocationReason"] as? String == "developerIssue")
        #expect(refunded["verification"] as? String == "verified")

        let twice = try await sandbox.storefront("refund", String(id))
        twice.expect(exit: 1)
        #expect(twice.stderr.contains("invalidTransactionState"), "\(twice)")
        #expect(twice.stderr.contains("refunded already"), "\(twice)")

        let log = try await sandbox.storefront("log", "--json")
        #expect(try log.jsonObject().objects("events").last?["state"] as? String == "revoked")
    }

    @Test func aRefundedConsumableLeavesTheBalance() async throws {
        let sandbox = try Sandbox()
        let (_, id) = try await buy(sandbox, Demo.coins, "-q", "3")
        try await sandbox.storefront("consume", Demo.coins).expect(exit: 0)
        try await sandbox.storefront("refund", String(id)).expect(exit: 0)
        #expect(try await product(sandbox, Demo.coins).product["balance"] as? Int == 0, "2 left, 3 refunded: 0")
    }

    @Test func buyOutcomeChoosesHowOnePurchaseEnds() async throws {
        let sandbox = try Sandbox()
        let cancel = try await sandbox.storefront("buy", Demo.goPro, "--outcome", "cancel", "--json")
        cancel.expect(exit: 0)
        #expect(try cancel.jsonObject()["result"] as? String == "userCancelled")
        #expect(try cancel.jsonObject()["transaction"] == nil)
        let cancelText = try await sandbox.storefront("buy", Demo.goPro, "--outcome", "cancel")
        #expect(cancelText.stdout.contains("cancelled"), "\(cancelText)")

        let failed = try await sandbox.storefront("buy", Demo.goPro, "--outcome", "purchaseNotAllowed", "--json")
        failed.expect(exit: 1)
        let error = try #require(try failed.jsonObject()["error"] as? [String: Any], "\(failed)")
        #expect(error["name"] as? String == "purchaseNotAllowed")
        #expect(error["domain"] as? String == "Product.PurchaseError")
        #expect(error["skErrorCode"] as? Int == 4)
        #expect(failed.stderr.contains("purchaseNotAllowed"), "\(failed)")
        #expect(try await transactions(sandbox).isEmpty)

        let (asked, _) = try await buy(sandbox, Demo.goPro, "--outcome", "askToBuy")
        #expect((asked["request"] as? [String: Any])?["reason"] as? String == "askToBuy")

        // With Ask to Buy on, a chosen success still goes through.
        try await setting(sandbox, "askToBuy", "true")
        let (succeeded, _) = try await buy(sandbox, Demo.swiftShopping, "--outcome", "succeed")
        #expect(succeeded["result"] as? String == "success")
        #expect(succeeded["finished"] as? Bool == true)
        #expect(try await product(sandbox, Demo.swiftShopping).product["owned"] as? Bool == true)
    }

    @Test func buyOutsideOfAnOwnedNonConsumableChargesNothingAndSaysSo() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let (document, _) = try await buy(sandbox, Demo.swiftShopping, "--outside")
        #expect(document["alreadyOwned"] as? Bool == true)
        let text = try await sandbox.storefront("buy", Demo.swiftShopping, "--outside")
        text.expect(exit: 0)
        #expect(text.stdout.contains("owns Swift Shopping already"), "\(text)")
        #expect(!text.stdout.contains("Purchased"))
        let purchased = try await transactions(sandbox)
        #expect(purchased.filter { $0["productID"] as? String == Demo.swiftShopping }.count == 1, "charged once")
    }

    @Test func buyOutsideIsAnUpdateTheAppDeliversAtItsNextCommand() async throws {
        let sandbox = try Sandbox()
        try await setting(sandbox, "askToBuy", "true")
        try await setting(sandbox, "purchaseError", "systemError")
        let (document, id) = try await buy(sandbox, Demo.coins, "--outside", "-q", "4")
        #expect(document["result"] as? String == "success")
        let transaction = try #require(document["transaction"] as? [String: Any])
        #expect(transaction["status"] as? String == "purchased")
        #expect(transaction["isFinished"] as? Bool == false)
        #expect(transaction["purchasedQuantity"] as? Int == 4)

        // Not the app: nothing is delivered by these.
        for arguments in [["transactions"], ["settings"], ["log"], ["accounts"], ["buy", Demo.goPro, "--outside"]] {
            let run = try await sandbox.storefront(arguments)
            run.expect(exit: 0)
            #expect(!run.stderr.contains("delivered"), "\(arguments):\n\(run)")
        }
        #expect(try await transactions(sandbox).first("productID", Demo.coins)?["isFinished"] as? Bool == false)

        let (coins, run) = try await product(sandbox, Demo.coins)
        #expect(coins["balance"] as? Int == 4)
        #expect(run.stderr.contains("delivered unfinished transaction \(id)"), "\(run)")
        #expect(try await product(sandbox, Demo.goPro).product["owned"] as? Bool == true)
    }

    @Test func aOnceErrorFailsTheNextPurchaseOnly() async throws {
        let sandbox = try Sandbox()
        let set = try await sandbox.storefront("settings", "set", "purchaseError", "networkError", "--once", "--json")
        set.expect(exit: 0)
        let answer = try set.jsonObject()
        #expect(answer["name"] as? String == "purchaseError")
        #expect(answer["value"] as? String == "networkError")
        #expect(answer["once"] as? Bool == true)

        let listed = try await sandbox.storefront("settings", "--json")
        let document = try listed.jsonObject()
        #expect((document["settings"] as? [String: Any])?["purchaseError"] as? String == "networkError")
        #expect(document["once"] as? [String] == ["purchaseError"])
        let table = try await sandbox.storefront("settings")
        let row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("purchaseError") })
        #expect(row.contains("networkError (once)"), "\(table)")

        let failed = try await sandbox.storefront("buy", Demo.goPro)
        failed.expect(exit: 1)
        #expect(failed.stderr.contains("networkError"), "\(failed)")
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)

        let after = try await sandbox.storefront("settings", "--json")
        #expect((try after.jsonObject()["settings"] as? [String: Any])?["purchaseError"] as? String == "none")
        #expect(try after.jsonObject()["once"] as? [String] == [])
    }

    @Test func aOnceErrorIsTakenByExactlyOneOfTwoProcesses() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "purchaseError", "systemError", "--once").expect(exit: 0)
        let runs = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for account in ["a@qa", "b@qa"] {
                group.addTask { try await sandbox.storefront(["--account", account, "buy", Demo.coins]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.map(\.status).sorted() == [0, 1], "\(runs)")
        #expect(runs.filter { $0.stderr.contains("systemError") }.count == 1, "\(runs)")
        for run in runs { run.expectNoCrashOutput() }
    }

    @Test func onceOnANonErrorSettingIsAUsageError() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("settings", "set", "askToBuy", "true", "--once")
        run.expect(exit: 64)
        #expect(run.stderr.contains("--once"), "\(run)")
        let settings = try await sandbox.storefront("settings", "--json")
        #expect((try settings.jsonObject()["settings"] as? [String: Any])?["askToBuy"] as? String == "false")
    }

    @Test func offlineFailsWithNetworkErrorAndExitOne() async throws {
        let sandbox = try Sandbox()
        _ = try await buy(sandbox, Demo.swiftShopping)
        try await setting(sandbox, "offline", "true")
        for arguments in [["products"], ["buy", Demo.goPro], ["restore"]] {
            let run = try await sandbox.storefront(arguments)
            run.expect(exit: 1)
            #expect(run.stdout.isEmpty, "\(arguments):\n\(run)")
            #expect(run.stderr.contains("networkError"), "\(arguments):\n\(run)")
        }
        let json = try await sandbox.storefront("buy", Demo.goPro, "--json")
        json.expect(exit: 1)
        let error = try #require(try json.jsonObject()["error"] as? [String: Any], "\(json)")
        #expect(error["name"] as? String == "networkError")
        #expect(error["domain"] as? String == "StoreKitError")
        #expect(error["skErrorCode"] as? Int == 7)
        // What needs no network still works.
        #expect(try await transactions(sandbox).count == 1)
        let entitlements = try await sandbox.storefront("entitlements", "--json")
        entitlements.expect(exit: 0)
        #expect(try entitlements.jsonObject().objects("entitlements").count == 1)

        try await setting(sandbox, "offline", "false")
        try await sandbox.storefront("products").expect(exit: 0)
    }

    @Test("transactions --json lists purchased transactions only; --pending the requests, with their reasons")
    func transactionsJSONAndPendingRequests() async throws {
        let sandbox = try Sandbox()
        let (_, bought) = try await buy(sandbox, Demo.swiftShopping)
        let (_, asked) = try await buy(sandbox, Demo.goPro, "--outcome", "askToBuy")
        let (_, interrupted) = try await buy(sandbox, Demo.iPhoneRage, "--outcome", "interrupt")
        let (_, declined) = try await buy(sandbox, Demo.nightlyRage, "--outcome", "askToBuy")
        try await sandbox.storefront("decline", String(declined)).expect(exit: 0)

        let history = try await transactions(sandbox)
        #expect(history.compactMap { $0["id"] as? Int } == [bought])
        #expect(history.map { $0["status"] as? String } == ["purchased"])
        #expect(history.map { $0["jwsRepresentation"] is String } == [true])
        #expect(history.allSatisfy { $0["verification"] as? String == "verified" })
        let requests = try await requests(sandbox)
        #expect(requests.compactMap { $0["id"] as? Int } == [asked, interrupted])
        #expect(requests.map { $0["reason"] as? String } == ["askToBuy", "interrupted"])
        #expect(requests.allSatisfy { $0["jwsRepresentation"] == nil && $0["status"] == nil })
    }

    @Test func deleteTransactionForgetsAPurchase() async throws {
        let sandbox = try Sandbox()
        let (_, id) = try await buy(sandbox, Demo.goPro)
        let delete = try await sandbox.storefront("delete-transaction", String(id), "--json")
        delete.expect(exit: 0)
        #expect(try delete.jsonObject()["deleted"] as? Int == id)
        #expect(try await transactions(sandbox).isEmpty)
        #expect(try await product(sandbox, Demo.goPro).product["owned"] as? Bool == false)
        let twice = try await sandbox.storefront("delete-transaction", String(id))
        twice.expect(exit: 1)
        #expect(twice.stderr.contains("transactionNotFound"), "\(twice)")
        let (again, newID) = try await buy(sandbox, Demo.goPro)
        #expect(again["alreadyOwned"] as? Bool == false)
        #expect(newID > id)
    }

    @Test func anotherAccountsTransactionIsNotFound() async throws {
        let sandbox = try Sandbox()
        let (_, id) = try await buy(sandbox, Demo.goPro, "--outcome", "askToBuy")
        for command in ["approve", "decline", "resolve", "refund", "delete-transaction"] {
            let run = try await sandbox.storefront(["--account", "stranger@qa", command, String(id)])
            run.expect(exit: 1)
            #expect(run.stderr.contains("transactionNotFound"), "\(command):\n\(run)")
        }
        #expect(try await requests(sandbox).first?["id"] as? Int == id)
    }

    @Test func finishTransactionsFalseLeavesPurchasesForTheNextLaunch() async throws {
        let sandbox = try Sandbox()
        try await setting(sandbox, "finishTransactions", "false")
        let human = try await sandbox.storefront("buy", Demo.coins, "-q", "2")
        human.expect(exit: 0)
        #expect(human.stdout.contains("Purchased 100 Coins × 2, left unfinished (transaction "), "\(human)")
        let (document, id) = try await buy(sandbox, Demo.goPro)
        #expect(document["finished"] as? Bool == false)

        let (coins, run) = try await product(sandbox, Demo.coins)
        #expect(coins["balance"] as? Int == 0)
        #expect(run.stderr.contains("finishTransactions is false"), "\(run)")
        #expect(try await product(sandbox, Demo.goPro).product["owned"] as? Bool == false)

        let set = try await sandbox.storefront("settings", "set", "finishTransactions", "true")
        set.expect(exit: 0)
        #expect(!set.stderr.contains("delivered"), "\(set)")
        let (delivered, launch) = try await product(sandbox, Demo.coins)
        #expect(delivered["balance"] as? Int == 2)
        #expect(launch.stderr.contains("delivered unfinished transaction \(id)"), "\(launch)")
        #expect(try await product(sandbox, Demo.goPro).product["owned"] as? Bool == true)
    }

    @Test func aVerificationErrorFailsTheBuyAndLeavesItForLater() async throws {
        let sandbox = try Sandbox()
        try await setting(sandbox, "verificationError", "invalidSignature")
        let buy = try await sandbox.storefront("buy", Demo.goPro, "--json")
        buy.expect(exit: 1)
        let error = try #require(try buy.jsonObject()["error"] as? [String: Any], "\(buy)")
        #expect(error["name"] as? String == "invalidSignature")
        #expect(error["domain"] as? String == "VerificationResult.VerificationError")
        let (goPro, run) = try await product(sandbox, Demo.goPro)
        #expect(goPro["owned"] as? Bool == false)
        #expect(run.stderr.contains("arrived unverified"), "\(run)")
        #expect(try await transactions(sandbox).first?["isFinished"] as? Bool == false)

        try await setting(sandbox, "verificationError", "none")
        let (delivered, launch) = try await product(sandbox, Demo.goPro)
        #expect(delivered["owned"] as? Bool == true)
        #expect(launch.stderr.contains("delivered unfinished transaction"), "\(launch)")
    }

    @Test func accountsSwitchIsKeptForLaterCommands() async throws {
        let sandbox = try Sandbox()
        let create = try await sandbox.storefront("accounts", "create", "qa@local", "--json")
        create.expect(exit: 0)
        #expect(try create.jsonObject()["created"] as? String == "qa@local")
        let exists = try await sandbox.storefront("accounts", "create", "qa@local")
        exists.expect(exit: 1)
        #expect(exists.stderr.contains("exists already"), "\(exists)")

        let switched = try await sandbox.storefront("accounts", "switch", "qa@local")
        switched.expect(exit: 0)
        let (_, id) = try await buy(sandbox, Demo.goPro)

        let mine = try await sandbox.storefront("transactions", "--json")
        #expect(try mine.jsonObject()["account"] as? String == "qa@local")
        #expect(try mine.jsonObject().objects("transactions").compactMap { $0["id"] as? Int } == [id])
        #expect(try await transactions(sandbox, "--account", Store.defaultAccount).isEmpty)

        let accounts = try await sandbox.storefront("accounts", "--json")
        accounts.expect(exit: 0)
        #expect(try accounts.jsonObject()["current"] as? String == "qa@local")
        #expect((try accounts.jsonObject()["accounts"] as? [String])?.contains("qa@local") == true)
        let table = try await sandbox.storefront("accounts")
        #expect(table.stdout.contains("* qa@local"), "\(table)")
        // --account still wins for one command, and does not switch.
        let other = try await sandbox.storefront("--account", "other@local", "accounts", "--json")
        #expect(try other.jsonObject()["current"] as? String == "other@local")
        #expect(try await transactions(sandbox).count == 1)

        // Per-account settings follow the switch.
        try await setting(sandbox, "askToBuy", "true")
        try await sandbox.storefront("accounts", "switch", Store.defaultAccount).expect(exit: 0)
        let (free, _) = try await buy(sandbox, Demo.swiftShopping)
        #expect(free["result"] as? String == "success")
    }

    @Test func aProductOfferedInSomeStorefrontsOnly() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("catalog.json", """
            {
              "storefront": "USA",
              "storefronts": { "USA": { "currency": "USD" }, "DEU": { "currency": "EUR", "locale": "de_DE" } },
              "products": [
                { "id": "everywhere", "type": "nonConsumable", "displayName": "Everywhere", "price": "0.99" },
                { "id": "usonly", "type": "nonConsumable", "displayName": "US only", "price": "1.99", "availability": ["USA"] }
              ]
            }
            """)
        let usa = try await sandbox.storefront(["products", "--json"], catalog: catalog)
        usa.expect(exit: 0)
        #expect(try usa.jsonObject().objects("products").compactMap { $0["id"] as? String } == ["everywhere", "usonly"])

        try await sandbox.storefront(["settings", "set", "storefront", "DEU"], catalog: catalog).expect(exit: 0)
        let deu = try await sandbox.storefront(["products", "--json"], catalog: catalog)
        #expect(try deu.jsonObject().objects("products").compactMap { $0["id"] as? String } == ["everywhere"])
        let buy = try await sandbox.storefront(["buy", "usonly"], catalog: catalog)
        buy.expect(exit: 1)
        #expect(buy.stderr.contains("notAvailableInStorefront"), "\(buy)")
        #expect(buy.stderr.contains("DEU"), "\(buy)")

        let bad = try sandbox.write("bad.json", """
            { "storefronts": { "USA": { "currency": "USD" } },
              "products": [ { "id": "a", "type": "consumable", "displayName": "A", "price": "1", "availability": ["GBR"] } ] }
            """)
        let refused = try await sandbox.storefront(["products"], catalog: bad)
        refused.expect(exit: 65)
        #expect(refused.stderr.contains("products[0].availability[0]"), "\(refused)")
        let check = try await sandbox.storefront(["catalog", "check", bad, "--json"])
        check.expect(exit: 65)
        #expect(check.stdout.contains("products[0].availability[0]"), "\(check)")
    }
}
