import Foundation
import StoreEngine
import StorefrontUI

/// The exit codes scripts rely on (sysexits.h where one fits).
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// The operation failed (a StoreKit error such as paymentNotAllowed).
    case failure = 1
    /// The paywall needs a terminal and there is none.
    case noTerminal = 2
    case usage = 64
    case badCatalog = 65
    case catalogMissing = 66
    case storeUnusable = 74
}

/// Where the CLI writes: standard output and standard error, or a test's buffers.
public struct Console: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's standard output and error.
    public static let standard = Console(
        out: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        err: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
}

/// Opens the paywall for an invocation; supplied by the executable, which owns the terminal.
public typealias PaywallRunner = @Sendable (Store, Invocation, Console) async -> ExitCode

/// The `storefront` command line.
public enum CLI {
    public static let version = "0.1.0"

    /// The store file used when neither `--store` nor `STOREFRONT_STORE` names one:
    /// `$XDG_STATE_HOME/storefront/store.sqlite`, else `~/.local/state/storefront/store.sqlite`.
    public static func defaultStorePath(environment: [String: String]) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return state + "/storefront/store.sqlite"
    }

    /// Runs one command line and returns its exit code.
    public static func run(_ arguments: [String], environment: [String: String], console: Console = .standard,
                           paywall: PaywallRunner? = nil) async -> ExitCode {
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments)
        } catch {
            console.err("storefront: \(error.description)")
            if let name = error.command, let help = CommandHelp.named(name) {
                console.err("Usage: storefront [OPTIONS] \(help.usage)")
            }
            console.err("Run 'storefront --help' for the commands and options.")
            return .usage
        }

        if let code = ToolCommands.run(invocation, console: console) { return code }
        let defaultStore = defaultStorePath(environment: environment)
        switch invocation.command {
        case .help(nil):
            console.out(CommandHelp.overview(defaultStore: defaultStore))
            return .success
        case .help(let name?):
            console.out(CommandHelp.named(name)!.text)
            return .success
        case .catalogCheck(let path):
            return CatalogCommands.check(path, json: invocation.json, console: console)
        case .catalogConvert(let path):
            return CatalogCommands.convert(path, console: console)
        default:
            break
        }

        let explicitStore = invocation.storePath ?? environment["STOREFRONT_STORE"].flatMap { $0.isEmpty ? nil : $0 }
        if invocation.command == .doctor {
            // Before the catalog: a store file is checked on its own, and nothing is created.
            return DoctorCommand.run(path: explicitStore ?? defaultStore, json: invocation.json, console: console)
        }

        let catalog: Catalog
        do {
            catalog = try Catalog.load(contentsOf: invocation.catalogPath)
        } catch {
            // The message quotes catalog text (ids, keys), which is data: never raw escapes on the terminal.
            console.err("storefront: error: \(TerminalText.sanitized(error.description))")
            switch error.kind {
            case .missing, .unreadable:
                console.err("Pass the catalog with --catalog PATH (default ./products.json).")
                return .catalogMissing
            case .malformed, .invalid:
                return .badCatalog
            }
        }
        for note in catalog.notes { console.err("storefront: note: \(TerminalText.sanitized(note))") }

        let store: Store
        do {
            store = try Store(catalog: catalog, path: explicitStore ?? defaultStore, account: invocation.account,
                              createFolder: explicitStore == nil)
        } catch {
            console.err("storefront: error: store file \(error.description)")
            console.err("The file was left as it is. Use --store PATH (or STOREFRONT_STORE) for another store file.")
            return .storeUnusable
        }

        let session = Session(store: store, invocation: invocation, console: console)
        do {
            // The store opens: renewals that fell due while nothing ran are made now, in order.
            try await store.processRenewals()
            if invocation.command.actsAsTheApp { try await session.deliverUnfinished() }
            if invocation.command == .paywall {
                if let paywall { return await paywall(store, invocation, console) }
                try await session.run(.products)
                return .success
            }
            try await session.run(invocation.command)
            return .success
        } catch let error as StoreError {
            if invocation.json { console.out(error.json.serialized()) }
            console.err("storefront: \(error.description)")
            return .failure
        } catch let error as AccountExists {
            console.err("storefront: the account \(TerminalText.sanitized(error.name)) exists already; switch to it with: storefront accounts switch NAME")
            return .failure
        } catch let error as VerifyFailed {
            console.err("storefront: failedVerification: \(error.reason)")
            return .failure
        } catch let error as SettingError {
            console.err("storefront: \(error.description)")
            return .usage
        } catch let error as SQLiteError {
            console.err("storefront: error: store file \(store.path): \(error.message)")
            return .storeUnusable
        } catch {
            console.err("storefront: error: \(error)")
            return .failure
        }
    }
}

/// One command against an open store.
struct Session {
    let store: Store
    let invocation: Invocation
    let console: Console

    var json: Bool { invocation.json }

    /// As an app does at launch: transactions left unfinished (a crash between purchase
    /// and delivery, an approval, a purchase outside the app) are delivered and finished now.
    func deliverUnfinished() async throws {
        let delivery = try await store.deliverUnfinished()
        for transaction in delivery.finished {
            console.err("storefront: delivered unfinished transaction \(transaction.id) (\(TerminalText.sanitized(transaction.productID))): an update (a renewal, an approval, a purchase outside the app) or left by an earlier or concurrent run")
        }
        for transaction in delivery.left {
            let why = if case .unverified(let reason) = transaction.verification { "it arrived unverified (\(reason))" }
                else { "finishTransactions is false" }
            console.err("storefront: transaction \(transaction.id) (\(TerminalText.sanitized(transaction.productID))) is waiting for the app and was not finished: \(why)")
        }
    }

    func run(_ command: Command) async throws {
        switch command {
        case .products: try await products()
        case .buy(let productID, let quantity, let outcome, let offerID):
            try await buy(productID, quantity: quantity, outcome: outcome, offerID: offerID)
        case .clock: try await clock()
        case .advanceClock(let duration): try await advanceClock(duration)
        case .status(let groupID): try await status(groupID)
        case .autoRenew(let group, let on):
            try await store.setAutoRenew(groupID: group, on)
            try await status(group, headline: "Auto-renew is \(on ? "on" : "off").")
        case .expire(let group):
            try await store.expireSubscription(groupID: group)
            try await status(group, headline: "Expired now.")
        case .renew(let group):
            try await store.renewSubscription(groupID: group)
            try await status(group, headline: "Renewed now.")
        case .buyOutside(let productID, let quantity): try await buyOutside(productID, quantity: quantity)
        case .approve(let id): try await changed(try await store.approve(id), "Approved")
        case .decline(let id): try await changed(try await store.decline(id), "Declined")
        case .resolve(let id): try await changed(try await store.resolve(id), "Resolved")
        case .refund(let id, let reason): try await changed(try await store.refund(id, reason: reason), "Refunded")
        case .deleteTransaction(let id): try await deleteTransaction(id)
        case .accounts: try await accounts()
        case .createAccount(let name): try await createAccount(name)
        case .switchAccount(let name): try await switchAccount(name)
        case .restore: try await restore()
        case .transactions: try await transactions()
        case .entitlements: try await entitlements()
        case .consume(let productID, let quantity): try await consume(productID, quantity: quantity)
        case .reset(let scope): try await reset(scope)
        case .settings: try await settings()
        case .setSetting(let name, let value, let once): try await setSetting(name, value, once: once)
        case .log(let limit): try await log(limit: limit)
        case .exportKey: console.out(store.publicKeyPEM.trimmingCharacters(in: .newlines))
        case .verify(let jws): try await verify(jws)
        case .paywall, .help, .version, .catalogCheck, .catalogConvert, .doctor, .completions, .manPage, .complete: break
        }
    }

    func products() async throws {
        let storefront = try await store.storefront()
        let products = try await store.products()
        let owned = try await store.ownedProducts()
        let balances = try await store.balances()
        let canPay = try await store.canMakePayments()
        if json {
            console.out(JSON.object([
                "storefront": storefront.json,
                "account": .string(store.account),
                "canMakePayments": .bool(canPay),
                "products": .array(products.map { $0.json(owned: owned[$0.id], balance: balances[$0.id]) }),
            ]).serialized())
            return
        }
        console.out("Storefront \(storefront.countryCode) (\(storefront.currency), \(storefront.locale)) · account \(TerminalText.sanitized(store.account))")
        if !canPay { console.out("canMakePayments is false for this account: purchases are not available.") }
        let statuses = Dictionary(uniqueKeysWithValues: try await store.subscriptionStatuses().map { ($0.groupID, $0) })
        let eligible = try await store.introOfferEligibleGroups()
        var table = Table("PRODUCT ID", "NAME", "KIND", "PRICE", "STATUS")
        for product in products {
            let group = product.subscription?.subscriptionGroupID
            table.add(product.id, product.displayName, product.kindLabel,
                      canPay ? product.displayPrice : "Not available",
                      ProductStatus.text(for: product, owned: owned[product.id], balance: balances[product.id],
                                         subscription: group.flatMap { statuses[$0] },
                                         introEligible: group.map(eligible.contains) ?? false))
        }
        console.out(table.rendered)
    }

    func buy(_ productID: String, quantity: Int, outcome: PurchaseOutcome?, offerID: String?) async throws {
        let purchase = try await store.purchaseAndFinish(productID, quantity: quantity, offerID: offerID, outcome: outcome)
        let transaction: Transaction? = switch purchase.result {
        case .success(let transaction): transaction
        case .pending(let transaction): transaction
        case .userCancelled: nil
        }
        if json {
            console.out(JSON.object([
                "result": .string(purchase.result.name),
                "transaction": transaction?.json,
                "alreadyOwned": .bool(purchase.alreadyOwned),
                "finished": .bool(purchase.isFinished),
                "note": purchase.note.map(JSON.string),
            ]).serialized())
            return
        }
        let name = TerminalText.sanitized(try await store.product(id: productID)?.displayName ?? productID)
        switch purchase.result {
        case .success(let transaction):
            if purchase.alreadyOwned {
                console.out("You've already purchased \(name). It was restored for free (transaction \(transaction.id)).")
            } else if transaction.productID != productID, let note = purchase.note {
                console.out("Subscribed to \(name): the \(note).")
            } else if transaction.offerType == .introductory, transaction.price == 0 {
                console.out("Started the free trial of \(name) — transaction \(transaction.id).")
            } else {
                console.out("Purchased \(name)\(quantity > 1 ? " × \(quantity)" : "") for \(try await displayPrice(transaction)) — transaction \(transaction.id).")
            }
            if let note = purchase.note, transaction.productID == productID { console.out("The App Store noted: \(note).") }
            if !purchase.isFinished, transaction.productID == productID {
                console.out("Not finished: finishTransactions is false, so the app \"crashed\" before finish(). It is delivered again at the next launch.")
            }
        case .userCancelled:
            console.out("The purchase of \(name) was cancelled (userCancelled).")
        case .pending(let transaction):
            let id = transaction.map { String($0.id) } ?? "?"
            switch transaction?.pendingReason {
            case .interrupted:
                console.out("The purchase of \(name) was interrupted and is pending (transaction \(id)): the user must act first. Complete it with: storefront resolve \(id)")
            default:
                console.out("The purchase of \(name) is pending Ask to Buy approval (transaction \(id)). A parent answers with: storefront approve \(id) (or decline \(id))")
            }
        }
    }

    func buyOutside(_ productID: String, quantity: Int) async throws {
        // As in the app: what the account owns is handed back, not charged again.
        let restorable = store.catalog.product(id: productID)?.type.isRestorable == true
        let owned = restorable ? try await store.isEntitled(to: productID) : false
        let result = try await store.purchaseOutsideApp(productID, quantity: quantity)
        guard case .success(let transaction) = result else { return }
        if json {
            console.out(JSON.object(["result": .string(result.name), "transaction": transaction.json,
                                     "alreadyOwned": .bool(owned)]).serialized())
            return
        }
        let name = TerminalText.sanitized(try await store.product(id: productID)?.displayName ?? productID)
        if owned {
            console.out("The account owns \(name) already (transaction \(transaction.id)): nothing was charged.")
            return
        }
        console.out("Purchased \(name) outside the app — transaction \(transaction.id). The app receives it as an update (a running paywall within a second; otherwise at its next launch).")
    }

    /// Reports a transaction an App Store action changed (approve, decline, resolve, refund).
    func changed(_ transaction: Transaction, _ verb: String) async throws {
        if json {
            console.out(JSON.object(["transaction": transaction.json]).serialized())
            return
        }
        let name = TerminalText.sanitized(try await store.product(id: transaction.productID)?.displayName ?? transaction.productID)
        switch verb {
        case "Approved", "Resolved":
            console.out("\(verb) transaction \(transaction.id) (\(name)): purchased. The app receives it as an update.")
        case "Refunded":
            console.out("Refunded transaction \(transaction.id) (\(name)): revoked (\(transaction.revocationReason?.rawValue ?? "other")); the entitlement is gone.")
        default:
            console.out("\(verb) transaction \(transaction.id) (\(name)): \(transaction.status.rawValue).")
        }
    }

    func deleteTransaction(_ id: Int64) async throws {
        try await store.deleteTransaction(id)
        if json {
            console.out(JSON.object(["deleted": .integer(id)]).serialized())
            return
        }
        console.out("Deleted transaction \(id) from \(TerminalText.sanitized(store.account))'s history.")
    }

    func accounts() async throws {
        let names = try await store.accounts()
        if json {
            console.out(JSON.object([
                "current": .string(store.account),
                "accounts": .array(names.map(JSON.string)),
            ]).serialized())
            return
        }
        guard !names.isEmpty else {
            console.out("No accounts yet; \(TerminalText.sanitized(store.account)) is used when none is named.")
            return
        }
        for name in names {
            console.out("\(name == store.account ? "*" : " ") \(TerminalText.sanitized(name))")
        }
    }

    func createAccount(_ name: String) async throws {
        guard try await store.createAccount(name) else { throw AccountExists(name: name) }
        if json {
            console.out(JSON.object(["created": .string(name)]).serialized())
            return
        }
        console.out("Created sandbox tester \(TerminalText.sanitized(name)) with an empty history. Use it with --account \(TerminalText.sanitized(name)) or: storefront accounts switch \(TerminalText.sanitized(name))")
    }

    func switchAccount(_ name: String) async throws {
        _ = try await store.switchAccount(to: name)
        if json {
            console.out(JSON.object(["current": .string(name)]).serialized())
            return
        }
        console.out("Switched to \(TerminalText.sanitized(name)): commands without --account use it now.")
    }

    func clock() async throws {
        let (now, rate) = try await store.clock()
        if json {
            console.out(JSON.object(["now": .date(now), "timeRate": .string(rate.rawValue)]).serialized())
            return
        }
        console.out("Store time: \(now.iso8601) (\(rate.rawValue))")
    }

    func advanceClock(_ duration: ISODuration) async throws {
        let now = try await store.advanceClock(by: duration)
        if json {
            console.out(JSON.object(["now": .date(now), "advancedBy": .string(duration.description)]).serialized())
            return
        }
        console.out("Advanced the clock by \(duration.spelledOut): store time is \(now.iso8601). Renewals due by then are made.")
    }

    func status(_ group: String?, headline: String? = nil) async throws {
        let groupID = group.flatMap { store.catalog.product(id: $0)?.subscription?.groupID } ?? group
        let statuses = try await store.subscriptionStatuses().filter { groupID == nil || $0.groupID == groupID }
        if let groupID, statuses.isEmpty { throw StoreError.noSubscription(groupID: groupID) }
        if json {
            console.out(JSON.object([
                "account": .string(store.account),
                "now": .date(try await store.clock().now),
                "statuses": .array(statuses.map(\.json)),
            ]).serialized())
            return
        }
        if let headline { console.out(headline) }
        guard !statuses.isEmpty else {
            console.out("\(TerminalText.sanitized(store.account)) has no subscriptions.")
            return
        }
        var table = Table("GROUP", "STATE", "PRODUCT", "AUTO-RENEW", "RENEWS / EXPIRED", "NOTES")
        for status in statuses {
            let info = status.renewalInfo
            var notes: [String] = []
            if info.autoRenewPreference != info.currentProductID { notes.append("next: \(info.autoRenewPreference)") }
            if let reason = info.expirationReason { notes.append("expirationReason \(reason.rawValue)") }
            if let grace = info.gracePeriodExpirationDate { notes.append("grace until \(grace.iso8601)") }
            let date = info.renewalDate ?? status.transaction.expirationDate
            table.add(status.groupID, status.state.rawValue, status.transaction.productID,
                      info.willAutoRenew ? "on" : "off", date?.iso8601 ?? "", notes.joined(separator: ", "))
        }
        console.out(table.rendered)
    }

    func displayPrice(_ transaction: Transaction) async throws -> String {
        if let storefront = store.catalog.storefront(transaction.storefront) {
            return storefront.displayPrice(transaction.price)
        }
        return try await store.storefront().displayPrice(transaction.price)
    }

    func restore() async throws {
        let restored = try await store.sync()
        if json {
            console.out(JSON.object([
                "count": .integer(restored.count),
                "restored": .array(restored.map(\.json)),
            ]).serialized())
            return
        }
        console.out("Restored \(restored.count) purchase\(restored.count == 1 ? "" : "s").")
        for transaction in restored { console.out("  \(TerminalText.sanitized(transaction.productID))") }
    }

    func transactions() async throws {
        let transactions = try await store.transactions()
        if json {
            console.out(JSON.object([
                "account": .string(store.account),
                "transactions": .array(transactions.map(\.json)),
            ]).serialized())
            return
        }
        guard !transactions.isEmpty else {
            console.out("No transactions for \(TerminalText.sanitized(store.account)).")
            return
        }
        var table = Table("ID", "PURCHASED", "PRODUCT ID", "QTY", "PRICE", "STATUS", "EXPIRES", "NOTES")
        for transaction in transactions {
            var notes: [String] = []
            if transaction.isUpgraded { notes.append("upgraded") }
            if let reason = transaction.revocationReason { notes.append("revoked (\(reason.rawValue))") }
            if transaction.offerType != nil { notes.append("\(transaction.offerType!.rawValue) offer") }
            if !transaction.isFinished, transaction.status == .purchased { notes.append("unfinished") }
            switch transaction.pendingReason {
            case .askToBuy where transaction.status == .pending: notes.append("Ask to Buy: approve or decline")
            case .interrupted where transaction.status == .pending: notes.append("interrupted: resolve")
            default: break
            }
            if case .unverified(let reason) = transaction.verification { notes.append("UNVERIFIED: \(reason)") }
            table.add(String(transaction.id), transaction.purchaseDate.iso8601, transaction.productID,
                      String(transaction.purchasedQuantity), try await displayPrice(transaction),
                      transaction.status.rawValue, transaction.expirationDate?.iso8601 ?? "",
                      notes.joined(separator: ", "))
        }
        console.out(table.rendered)
    }

    func entitlements() async throws {
        let entitlements = try await store.currentEntitlements()
        if json {
            let renewals = try await store.renewalInfo()
            console.out(JSON.object([
                "account": .string(store.account),
                "entitlements": .array(entitlements.map(\.json)),
                "renewalInfo": .object(renewals.sorted { $0.key < $1.key }.map { JSON.Member($0.key, $0.value.json) }),
            ]).serialized())
            return
        }
        guard !entitlements.isEmpty else {
            console.out("\(TerminalText.sanitized(store.account)) owns nothing.")
            return
        }
        var table = Table("PRODUCT ID", "TYPE", "TRANSACTION", "PURCHASED", "EXPIRES")
        for transaction in entitlements {
            table.add(transaction.productID, transaction.productType.rawValue, String(transaction.id),
                      transaction.purchaseDate.iso8601, transaction.expirationDate?.iso8601 ?? "")
        }
        console.out(table.rendered)
    }

    func consume(_ productID: String, quantity: Int) async throws {
        let balance = try await store.consume(productID, quantity: quantity)
        if json {
            console.out(JSON.object([
                "productID": .string(productID), "consumed": .integer(quantity), "balance": .integer(balance),
            ]).serialized())
            return
        }
        console.out("Consumed \(quantity) of \(TerminalText.sanitized(productID)); balance \(balance).")
    }

    func reset(_ scope: ResetScope) async throws {
        try await store.reset(scope)
        if json {
            console.out(JSON.object(["reset": .string(scope.rawValue), "account": .string(store.account)]).serialized())
            return
        }
        switch scope {
        case .app: console.out("Reset the app: owned products and balances are gone, as after deleting the app. Restore brings purchases back.")
        case .account: console.out("Reset account \(TerminalText.sanitized(store.account)): its history, settings and app state are gone.")
        case .all: console.out("Reset everything in \(store.path).")
        }
    }

    func settings() async throws {
        let settings = try await store.settings()
        if json {
            console.out(JSON.object([
                "account": .string(store.account),
                "settings": .object(settings.map { JSON.Member($0.name, .string($0.value)) }),
                "once": .array(settings.filter(\.once).map { JSON.string($0.name) }),
            ]).serialized())
            return
        }
        var table = Table("NAME", "VALUE", "SCOPE")
        for setting in settings {
            table.add(setting.name, setting.value + (setting.isDefault ? " (default)" : setting.once ? " (once)" : ""),
                      setting.scope == .account ? "account \(store.account)" : "store")
        }
        console.out(table.rendered)
    }

    func setSetting(_ name: String, _ value: String, once: Bool) async throws {
        let stored = try await store.setSetting(name, to: value, once: once)
        if json {
            console.out(JSON.object(["name": .string(name), "value": .string(stored), "once": .bool(once)]).serialized())
            return
        }
        console.out("\(name) = \(stored)\(once ? " (once: the next call only)" : "")")
    }

    func verify(_ jws: String) async throws {
        do {
            let (header, payload) = try await store.verify(jws: jws)
            if json {
                console.out(JSON.object(["verification": .string("verified"), "header": header, "payload": payload]).serialized())
            } else {
                console.out("Verified: signed by this store's key (kid \(header["kid"].map { $0.serialized(pretty: false) } ?? "none")).")
                console.out("Header:  \(TerminalText.sanitized(header.serialized(pretty: false)))")
                console.out("Payload:")
                for line in payload.serialized().split(separator: "\n") {
                    console.out("  " + TerminalText.sanitized(String(line)))
                }
            }
        } catch {
            if json {
                console.out(JSON.object(["verification": .string("unverified"), "reason": .string(error.description)]).serialized())
            }
            throw VerifyFailed(reason: error.description)
        }
    }

    func log(limit: Int) async throws {
        let events = try await store.events(limit: limit)
        if json {
            console.out(JSON.object(["account": .string(store.account), "events": .array(events.map(\.json))]).serialized())
            return
        }
        var table = Table("DATE", "STATE", "PRODUCT ID", "TRANSACTION", "DETAIL")
        for event in events {
            table.add(event.date.iso8601, event.state.rawValue, event.productID,
                      event.transactionID.map(String.init) ?? "", event.detail)
        }
        console.out(table.rendered)
    }
}

/// `accounts create` named an account that exists (exit 1).
struct AccountExists: Error {
    var name: String
}

extension Command {
    /// Whether the command plays the app (which delivers waiting transactions when it
    /// starts), rather than the App Store, a parent, or the tester.
    var actsAsTheApp: Bool {
        switch self {
        case .paywall, .products, .buy, .restore, .entitlements, .consume: true
        default: false
        }
    }
}

/// `verify` found the JWS wanting (exit 1).
struct VerifyFailed: Error {
    var reason: String
}
