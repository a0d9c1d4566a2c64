import Foundation
import StoreEngine
import StorefrontUI

/// `products`: the catalog's products for the current storefront, and what the account has of each.
struct ProductsCommand: StorefrontCommand {
    static let help = CommandHelp(
        name: "products", usage: "products [--json]",
        summary: "List the catalog's products for the current storefront",
        details: """
            Lists every product in display order (subscription groups by level, then
            non-consumables, consumables, non-renewing subscriptions) with its localized
            price and what the account has of it: Owned, Active until DATE, Balance N.
            """)

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self()
    }

    var needsCatalog: Bool { true }

    var actsAsTheApp: Bool { true }

    func run(in session: Session) async throws -> Report? { try await session.products() }
}

/// `buy PRODUCT_ID`: a purchase as `Product.purchase()`, or one made outside the app (`--outside`).
struct BuyCommand: StorefrontCommand {
    var productID: String
    var quantity = 1
    /// `--outside`: a purchase made outside the app, reaching it as an update (none of the app's choices below).
    var outside = false
    /// How this purchase ends instead of the settings (`--outcome`).
    var outcome: PurchaseChoice?
    /// `--offer`: a promotional offer, with its signature; `--win-back`: a win-back offer.
    var offerID: String?
    var appAccountToken: UUID?
    var offerSigning: OfferSigning?
    var winBackOfferID: String?
    var billingPlan: BillingPlanType?

    /// Every name `--outcome` takes, in the order the completions offer them.
    static let outcomeNames = ["succeed", "cancel", "askToBuy", "interrupt"] + purchaseErrors
    static let purchaseErrors = SimulatedError.cases(in: [.storeKitError, .purchaseError]).map(\.rawValue)
    static let outcome = Option<PurchaseChoice>(
        spec: OptionSpec("--outcome", value: "OUTCOME", kind: .words(outcomeNames),
                         "how this purchase ends instead of the settings: succeed, cancel, askToBuy, interrupt or an error"),
        refusal: { "--outcome takes succeed, cancel, askToBuy, interrupt or a purchase error (\(purchaseErrors.joined(separator: ", "))), not \"\($0)\"" },
        read: PurchaseChoice.init(name:))
    static let outside = Flag("--outside", "a purchase made outside the app, reaching it as an update")
    static let offer = Option<String>.text("--offer", value: "OFFER_ID", nonEmpty: "an offer id",
                                           "redeem a promotional offer of the subscription")
    static let signature = Option<String>.text("--signature", value: "SIGNATURE", nonEmpty: "a value",
                                               example: "header.payload.signature", needs: ["--offer", "x"],
                                               "with --offer: the offer's signature, a compact JWS or KEY_ID:NONCE:TIMESTAMP:BASE64 (offer sign prints it)")
    static let sign = Flag("--sign", needs: ["--offer", "x"], "with --offer: sign the offer now as the app's server would, with a key the store holds")
    static let winBack = Option<String>.text("--win-back", value: "OFFER_ID", nonEmpty: "an offer id",
                                             "redeem a win-back offer of the subscription (for lapsed subscribers)")
    static let billingPlan = Option<BillingPlanType>.words(
        "--billing-plan", value: "PLAN", [BillingPlanType.monthly, .billedUpfront].map(\.argument), read: BillingPlanType.init(argument:),
        "monthly (a one-year subscription's monthly plan, 12-month commitment) or upfront")

    static let help = CommandHelp(
        name: "buy", usage: "buy PRODUCT_ID [--quantity N] [--offer OFFER_ID (--signature SIGNATURE | --sign) | --win-back OFFER_ID] [--billing-plan PLAN] [--app-account-token UUID] [--outcome OUTCOME | --outside] [--json]",
        summary: "Purchase a product and deliver it, as Product.purchase()",
        details: """
            Buys the product for the account and, as the app would, delivers the content
            and finishes the transaction. Success is reported only after the purchase is
            durably written to the store file.
              --quantity N        how many of a consumable (1 to 10); other types take 1
              --outcome OUTCOME   how this purchase ends instead of askToBuy,
                                  interruptedPurchases and purchaseError: succeed, cancel,
                                  askToBuy, interrupt, or an error's case name (networkError,
                                  purchaseNotAllowed, …); the device's conditions
                                  (canMakePayments, offline, latency) still apply
              --outside           a purchase made outside the app (another device): the
                                  App Store records it, the app gets it as an update
              --offer OFFER_ID    redeem a promotional offer of the subscription (for current
                                  and lapsed subscribers of its group), with its signature, as
                                  Apple requires: --signature SIGNATURE (what offer sign prints:
                                  a compact JWS or KEY_ID:NONCE:TIMESTAMP:SIGNATURE), or --sign to
                                  sign it now with the key the store holds (offer sign --key
                                  chooses among several);
                                  none → missingOfferParameters, a bad one → invalidOfferSignature
              --win-back OFFER_ID redeem a win-back offer of the subscription (Product.PurchaseOption
                                  .winBackOffer): for an account whose subscription of that plan
                                  lapsed, within the offer's rules (paid months, months since the
                                  lapse, wait between offers, its dates); others → ineligibleForOffer;
                                  the transaction's offerType is winBack (4 in the payload)
              --app-account-token UUID   the app's token for the purchase
                                  (Product.PurchaseOption.appAccountToken): signed as
                                  appAccountToken in the transaction and its renewal info
              --billing-plan PLAN monthly buys a one-year subscription's monthly plan
                                  (Product.PurchaseOption.billingPlanType(.monthly)): billed
                                  every month over a 12-month commitment, each month a
                                  transaction with its commitmentInfo; upfront (the default)
                                  bills the year at once; a product without a monthly plan
                                  → productUnavailable
            Subscriptions follow their group: an upgrade (a lower level number) takes effect at
            once, a downgrade or a crossgrade to another period at the next renewal. The first
            subscription in a group gets its introductory offer.
            A non-consumable the account owns is not charged again: it is restored for free.
            The settings apply: canMakePayments false → purchaseNotAllowed; askToBuy or
            interruptedPurchases → pending (with the id to approve or resolve); offline →
            networkError; purchaseError → that error; finishTransactions false → not finished.
            --json prints {"result": "success" | "userCancelled" | "pending", "transaction": {…},
            "alreadyOwned": …, "finished": …}.
            """,
        options: [SharedOptions.quantity.spec, outcome.spec, outside.spec, offer.spec, signature.spec, sign.spec, winBack.spec,
                  SharedOptions.appAccountToken.spec, billingPlan.spec],
        operands: [.productID])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "a PRODUCT_ID")
        // The app's choices are not those of a purchase outside it.
        try line.allow(refusing: line.has(outside) ? [SharedOptions.appAccountToken.spec, billingPlan.spec] : [])
        let args = line.args
        let quantity = try line.value(SharedOptions.quantity) ?? 1
        let (outcome, offerID, winBack) = (try line.value(outcome), try line.value(offer), try line.value(winBack))
        if line.has(outside), outcome != nil || offerID != nil || winBack != nil {
            throw UsageError(description: "buy takes --outside or --outcome/--offer/--win-back, not both", command: line.name)
        }
        if offerID != nil, winBack != nil {
            throw UsageError(description: "buy takes --offer or --win-back, not both", command: line.name)
        }
        let signing = OfferArguments(signature: try line.value(signature), sign: line.has(sign))
        if line.has(outside) { return Self(productID: args[0], quantity: quantity, outside: true) }
        return Self(productID: args[0], quantity: quantity, outcome: outcome, offerID: offerID,
                    appAccountToken: try line.value(SharedOptions.appAccountToken), offerSigning: try signing.signing(offerID: offerID),
                    winBackOfferID: winBack, billingPlan: try line.value(billingPlan))
    }

    var needsCatalog: Bool { true }

    var actsAsTheApp: Bool { !outside }

    func run(in session: Session) async throws -> Report? {
        if outside { return try await session.buyOutside(productID, quantity: quantity) }
        return try await session.buy(productID, quantity: quantity, choice: outcome, offerID: offerID, appAccountToken: appAccountToken,
                                     offerSigning: offerSigning, winBackOfferID: winBackOfferID, billingPlan: billingPlan)
    }
}

/// `restore`: purchases brought back to the app, as `AppStore.sync()`.
struct RestoreCommand: StorefrontCommand {
    static let help = CommandHelp(
        name: "restore", usage: "restore [--json]",
        summary: "Restore purchases, as AppStore.sync()",
        details: """
            Brings back every non-consumable and active subscription of the account to the
            app (after `reset app`, as after reinstalling). Consumables are never restored.
            Adds no transaction; each restored product is logged in the restored state.
            """)

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self()
    }

    var needsCatalog: Bool { true }

    var actsAsTheApp: Bool { true }

    func run(in session: Session) async throws -> Report? { try await session.restore() }
}

/// `transactions`: the account's history as `Transaction.all`, or the requests waiting (`--pending`).
struct TransactionsCommand: StorefrontCommand {
    /// The requests waiting instead (`--pending`).
    var pending = false
    /// Which page: at most `limit`, purchased at or after `since`, after the page whose token named `after`.
    var limit: Int?
    var since: Date?
    var after: Int64?

    static let pending = Flag("--pending", "the requests waiting (Ask to Buy, interrupted) instead")
    static let since = Option<Date>(
        spec: OptionSpec("--since", value: "DATE", example: "2026-01-31",
                         "only those purchased at or after DATE (ISO-8601: 2026-01-31 or 2026-01-31T09:30:00Z)"),
        refusal: { "--since needs an ISO-8601 date or date and time (2026-01-31, 2026-01-31T09:30:00Z), not \"\($0)\"" },
        read: Invocation.date)
    /// The token of a page's end; `.some(nil)` for the start.
    static let after = Option<Int64?>(
        spec: OptionSpec("--after", value: "TOKEN", example: HistoryRevision.token(after: 2_000_000_001),
                         "the next page, after the one that printed TOKEN (More: …)"),
        refusal: { "--after needs the token a page of transactions ended with (More: …), not \"\($0)\"" },
        read: HistoryRevision.id)

    static let help = CommandHelp(
        name: "transactions", usage: "transactions [--limit N] [--since DATE] [--after TOKEN] [--pending] [--json]",
        summary: "The account's transaction history, newest first",
        details: """
            The account's transactions as the app sees them (Transaction.all), newest first:
            purchased ones only, and finished consumables only when refunded or when the setting
            includeConsumablesInHistory is true (Apple's SKIncludeConsumableInAppPurchaseHistory).
            Notes mark refunded, upgraded, unfinished and unverified transactions.
            Written as the store file is read, so the first lines come at once and a history
            of any length takes the same memory (the text table's columns are as wide as
            its first 100 rows need).
              --limit N       at most N; when more are left, the last line says how to get
                              them: More: storefront transactions --after TOKEN …
              --since DATE    only those purchased at or after DATE (2026-01-31, or
                              2026-01-31T09:30:00Z)
              --after TOKEN   the page after the one that ended with TOKEN, like the App Store
                              Server API's revision
            --json adds "hasMore" and "revision" (the token of the next page).
            A pending purchase is a request, not a transaction: --pending lists the requests
            waiting for a parent (Ask to Buy: approve or decline) or the user (interrupted:
            resolve), as Xcode's Transaction Manager shows them ({"requests": [{"id", "productID",
            "reason", "date"}]} with --json).
            """,
        options: [pending.spec, SharedOptions.limit.spec, since.spec, after.spec])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        if line.has(pending), line.has(SharedOptions.limit) || line.has(since) || line.has(after) {
            throw UsageError(description: "transactions --pending takes no --limit, --since or --after", command: line.name)
        }
        return Self(pending: line.has(pending), limit: try line.value(SharedOptions.limit), since: try line.value(since),
                    after: try line.value(after) ?? nil)
    }

    /// The report, for scenarios; `Session.run` streams the listing instead (`listTransactions`).
    func run(in session: Session) async throws -> Report? {
        pending ? try await session.pendingRequests() : try await session.transactionsReport(Session.Page(limit: limit, since: since, after: after))
    }
}

/// `entitlements [--product PRODUCT_ID]`: what the account owns now, as `Transaction.currentEntitlements`.
struct EntitlementsCommand: StorefrontCommand {
    /// `--product`: that product's entitlement only, as `Transaction.currentEntitlements(for:)`.
    var productID: String?

    static let product = Option<String>.text("--product", value: "PRODUCT_ID", kind: .productID, nonEmpty: "a product id",
                                             example: "com.example.one", "only this product's entitlement")

    static let help = CommandHelp(
        name: "entitlements", usage: "entitlements [--product PRODUCT_ID] [--json]",
        summary: "What the account owns now, as Transaction.currentEntitlements",
        details: """
            The newest active transaction of each non-consumable and subscription the
            account owns, as the App Store knows it (whether or not the app has it now).
              --product PRODUCT_ID   that product's only, as Transaction.currentEntitlements(for:):
                                     at most one transaction, with its group's renewal info
            """,
        options: [product.spec])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self(productID: try line.value(product))
    }

    var needsCatalog: Bool { true }

    var actsAsTheApp: Bool { true }

    func run(in session: Session) async throws -> Report? { try await session.entitlements(productID: productID) }
}

/// `consume PRODUCT_ID`: a consumable used up from the app's balance.
struct ConsumeCommand: StorefrontCommand {
    var productID: String
    var quantity = 1

    static let help = CommandHelp(
        name: "consume", usage: "consume PRODUCT_ID [--quantity N] [--json]",
        summary: "Use up a consumable from the app's balance",
        details: """
            Takes N (default 1) from the app-side balance of a consumable. Fails when the
            balance is smaller than N.
            """,
        options: [SharedOptions.quantity.spec], operands: [.productID])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "a PRODUCT_ID")
        try line.allow()
        return Self(productID: line.args[0], quantity: try line.value(SharedOptions.quantity) ?? 1)
    }

    var needsCatalog: Bool { true }

    var actsAsTheApp: Bool { true }

    func run(in session: Session) async throws -> Report? { try await session.consume(productID, quantity: quantity) }
}

/// `key export [--receipt] [--root [--der]]`: what verifies the store's signatures.
struct KeyCommand: StorefrontCommand {
    /// `--root`: the root certificate instead of the key; `--der`: its DER bytes; `--receipt`: the app receipts' signer.
    var root = false
    var der = false
    var receipt = false

    static let root = Flag("--root", "the root certificate of the store's chain instead of the key")
    static let der = Flag("--der", needs: ["--root"], "with --root: the certificate's DER bytes instead of PEM")
    static let receipt = Flag("--receipt", "the app receipts' RSA key (or, with --root, their root) instead of the JWS key")

    static let help = CommandHelp(
        name: "key", usage: "key export [--receipt] [--root [--der]]",
        summary: "Print the public key, or the root certificate, that verifies the store's signed data",
        details: """
            Prints the store file's ECDSA P-256 public key as PEM (-----BEGIN PUBLIC KEY-----),
            e.g. for `openssl dgst -sha256 -verify key.pem` over a JWS's first two parts.
              --root     the root certificate of the store's own certificate authority (PEM):
                         every JWS carries the chain leaf, intermediate, root in its x5c
                         header, as Apple's do. Give it to a server in place of Apple's root
                         (the App Store Server Library's SignedDataVerifier takes DER roots)
                         with the environment setting Sandbox or Production.
              --receipt  the app receipts' signer instead: its RSA 2048 public key, or with
                         --root the root of its own chain, which a receipt verifier trusts in
                         place of Apple Root CA (issued at the store's first receipt)
              --der      with --root: the certificate's DER bytes instead of PEM
            """,
        options: [root.spec, der.spec, receipt.spec], operands: [.words(["export"])], printsJSON: false)

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow(refusing: line.has(root) ? [] : [der.spec])  // key export --root --der
        guard line.args == ["export"] else { throw UsageError(description: "key takes export", command: line.name) }
        return Self(root: line.has(root), der: line.has(der), receipt: line.has(receipt))
    }

    func run(in session: Session) async throws -> Report? {
        if root {
            // The certificate a server trusts in place of Apple's root: PEM, or DER bytes.
            let root = receipt ? try await session.app.receiptCertificateChain().root : await session.app.rootCertificate()
            if der { session.console.outData(Data(root.der)) } else { session.console.out(root.pem.trimmingCharacters(in: .newlines)) }
        } else {
            // PEM with or without --json: it is what verifiers read.
            let pem = receipt ? try await session.app.receiptPublicKeyPEM() : session.app.publicKeyPEM
            session.console.out(pem.trimmingCharacters(in: .newlines))
        }
        return nil
    }
}

/// `verify JWS`: one signed transaction decoded and verified.
struct VerifyCommand: StorefrontCommand {
    var jws: String

    static let help = CommandHelp(
        name: "verify", usage: "verify JWS [--json]",
        summary: "Decode and verify one signed transaction (JWS)",
        details: """
            Checks a compact JWS (ES256) as a server does and prints its header and payload:
            its x5c certificate chain must lead to this store's root, valid at the payload's
            signedDate, with Apple's marker extensions; the leaf's key must have signed it.
            Exits with 1 when it does not verify: an edited byte, another key or chain, no
            x5c, or an algorithm other than ES256 (alg none is always refused).
            """,
        operands: [.text])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "a JWS string")
        try line.allow()
        return Self(jws: line.args[0])
    }

    func run(in session: Session) async throws -> Report? { try await session.verify(jws) }
}

/// The commands that play the app, on the app's face.
extension Session {
    /// As an app does at launch: transactions left unfinished (a crash between purchase
    /// and delivery, an approval, a purchase outside the app) are delivered and finished now.
    func deliverUnfinished() async throws {
        let delivery = try await app.deliverUnfinished()
        for transaction in delivery.finished {
            console.err("storefront: delivered unfinished transaction \(transaction.id) (\(TerminalText.sanitized(transaction.productID))): an update (a renewal, an approval, a purchase outside the app) or left by an earlier or concurrent run")
        }
        for transaction in delivery.revoked {
            console.err("storefront: transaction \(transaction.id) (\(TerminalText.sanitized(transaction.productID))) was refunded (\(transaction.revocationReason?.rawValue ?? "other")): the revocation arrived as an update; the app finished it and no longer grants it")
        }
        for transaction in delivery.left {
            let why = if case .unverified(let reason) = transaction.verification { "it arrived unverified (\(reason))" }
                else { "finishTransactions is false" }
            console.err("storefront: transaction \(transaction.id) (\(TerminalText.sanitized(transaction.productID))) is waiting for the app and was not finished: \(why)")
        }
    }

    func products() async throws -> Report {
        let snapshot = try await app.snapshot()
        let (storefront, owned, balances, canPay) = (snapshot.storefront, snapshot.owned, snapshot.balances, snapshot.canMakePayments)
        let json = JSON.object([
            "storefront": storefront.json,
            "account": .string(store.account),
            "canMakePayments": .bool(canPay),
            "products": .array(snapshot.products.map {
                $0.json(owned: owned[$0.id], balance: balances[$0.id], standing: snapshot.standing(of: $0))
            }),
        ])
        var lines = ["Storefront \(storefront.countryCode) (\(storefront.currency), \(storefront.locale)) · account \(TerminalText.sanitized(store.account))"]
        if !canPay { lines.append("canMakePayments is false for this account: purchases are not available.") }
        var table = Table("PRODUCT ID", "NAME", "KIND", "PRICE", "STATUS")
        for product in snapshot.products {
            // The engine's standing decides and words it, as on the paywall.
            let standing = snapshot.standing(of: product)
            table.add(product.id, product.displayName, product.kindLabel, standing.displayPrice ?? "Not available",
                      standing.text(for: product))
        }
        lines.append(table.rendered)
        return Report(json: json, lines)
    }

    func buy(_ productID: String, quantity: Int, choice: PurchaseChoice?, offerID: String?,
             appAccountToken: UUID? = nil, offerSigning: OfferSigning? = nil, winBackOfferID: String? = nil,
             billingPlan: BillingPlanType? = nil) async throws -> Report {
        let signature = try await offerSignature(offerSigning, productID: productID, offerID: offerID,
                                                 appAccountToken: appAccountToken)
        let reported = try await app.buyReporting(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                                                  offerSignature: signature, winBackOfferID: winBackOfferID,
                                                  billingPlanType: billingPlan, choice: choice)
        guard case .bought(let purchase, _, _, _) = reported else { return Report(reported, [:]) }
        let outcome = purchase.outcome
        var report = Report(reported, [
            "result": .string(outcome.result.name),
            "outcome": .string(outcome.name),
            "transaction": outcome.transaction?.json,
            "request": { if case .pending(let request) = outcome { request.json } else { nil } }(),
            "alreadyOwned": .bool(purchase.alreadyOwned),
            "finished": .bool(purchase.isFinished),
            "warning": purchase.warning.map(JSON.string),
            "change": { if case .changeScheduled(let change) = outcome { change.json }
                        else if case .purchased(_, let change?) = outcome { change.json } else { nil } }(),
        ])
        // The sentence first, as every front end says it; then what only a terminal reader needs.
        if case .purchased(_, let change?) = outcome { report.lines.append("The App Store noted: \(TerminalText.sanitized(change.summary)).") }
        if let warning = purchase.warning { console.err("storefront: warning: \(warning)") }
        return report
    }

    func restore() async throws -> Report {
        let restored = try await app.sync()
        var report = Report(ActionOutcome.restored(count: restored.count),
                            ["count": .integer(restored.count), "restored": .array(restored.map(\.json))])
        report.lines += restored.map { "  \(TerminalText.sanitized($0.productID))" }
        return report
    }

    /// The requests waiting for a parent (Ask to Buy) or the user (interrupted), oldest first.
    func pendingRequests() async throws -> Report {
        let requests = try await appStore.pendingRequests()
        let json = JSON.object(["account": .string(store.account), "requests": .array(requests.map(\.json))])
        guard !requests.isEmpty else {
            return Report(json: json, "No pending requests for \(TerminalText.sanitized(store.account)).")
        }
        var table = Table("REQUEST", "ASKED", "PRODUCT ID", "REASON", "NEXT")
        for request in requests {
            table.add(String(request.id), request.date.iso8601, request.productID, request.reason.rawValue,
                      request.reason.nextStep(id: request.id, store: store.path))
        }
        return Report(json: json, table.rendered)
    }

    /// The account's entitlements, or one product's (`productID`) with its group's renewal info.
    func entitlements(productID: String? = nil) async throws -> Report {
        let entitlements = try await app.currentEntitlements().filter { productID == nil || $0.productID == productID }
        let renewals = try await app.renewalInfo()
            .filter { group in productID == nil || entitlements.contains { $0.subscriptionGroupID == group.key } }
        let json = JSON.object([
            "account": .string(store.account),
            "entitlements": .array(entitlements.map(\.json)),
            "renewalInfo": .object(renewals.sorted { $0.key < $1.key }.map { JSON.Member($0.key, $0.value.json) }),
        ])
        guard !entitlements.isEmpty else {
            let account = TerminalText.sanitized(store.account)
            return Report(json: json, productID.map { "\(account) has no entitlement to \(TerminalText.sanitized($0))." } ?? "\(account) owns nothing.")
        }
        var table = Table("PRODUCT ID", "TYPE", "TRANSACTION", "PURCHASED", "EXPIRES")
        for transaction in entitlements {
            table.add(transaction.productID, transaction.productType.rawValue, String(transaction.id),
                      transaction.purchaseDate.iso8601, transaction.expirationDate?.iso8601 ?? "")
        }
        return Report(json: json, table.rendered)
    }

    func consume(_ productID: String, quantity: Int) async throws -> Report {
        let reported = try await app.consumeReporting(productID, quantity: quantity)
        let balance: JSON? = if case .consumed(_, _, let balance) = reported { .integer(balance) } else { nil }
        return Report(reported, ["productID": .string(productID), "consumed": .integer(quantity), "balance": balance])
    }

    func verify(_ jws: String) async throws -> Report {
        do {
            let (header, payload) = try await app.verify(jws: jws)
            let json = JSON.object(["verification": .string("verified"), "header": header, "payload": payload])
            let chain = header["x5c"].flatMap { value -> Int? in
                if case .array(let entries) = value { return entries.count }
                return nil
            } ?? 0
            return Report(json: json, [
                "Verified: the x5c chain (\(chain) certificates) leads to this store's root and was valid at signedDate; the leaf's key signed it.",
                "Header:  alg \(TerminalText.sanitized(header["alg"]?.serialized(pretty: false) ?? "none")), x5c leaf, intermediate, root (storefront key export --root)",
                "Payload:",
            ] + payload.serialized().split(separator: "\n").map { "  " + TerminalText.sanitized(String($0)) })
        } catch {
            // The CLI reports it: {"error": …, "verification": "unverified", "reason": …} with --json.
            throw VerifyFailed(reason: error.description)
        }
    }
}
