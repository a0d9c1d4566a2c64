import Foundation
import StoreEngine
import StorefrontUI

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
            "products": .array(snapshot.products.map { $0.json(owned: owned[$0.id], balance: balances[$0.id]) }),
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
             appAccountToken: UUID? = nil, offerSigning: OfferSigning? = nil, winBackOfferID: String? = nil) async throws -> Report {
        let signature = try await offerSignature(offerSigning, productID: productID, offerID: offerID,
                                                 appAccountToken: appAccountToken)
        let purchase = try await app.buy(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                                         offerSignature: signature, winBackOfferID: winBackOfferID, choice: choice)
        let outcome = purchase.outcome
        let json = JSON.object([
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
        let name = try await displayName(productID)
        var lines: [String] = []
        switch outcome {
        case .alreadyOwned(let transaction):
            lines.append("You've already purchased \(name). It was restored for free (transaction \(transaction.id)).")
        case .changeScheduled(let change):
            lines.append("Subscribed to \(name): the \(change.summary). Nothing is charged now; \(try await displayName(change.fromProductID)) runs until then (transaction \(change.current.id)).")
        case .purchased(let transaction, let change):
            if TransactionFacts.isFreeTrial(transaction) {
                lines.append("Started the free trial of \(name) — transaction \(transaction.id).")
            } else if transaction.offerType == .winBack {
                lines.append("Resubscribed to \(name) with the win-back offer \(TerminalText.sanitized(transaction.offerID ?? "")) for \(try await displayPrice(transaction)) — transaction \(transaction.id).")
            } else {
                lines.append("Purchased \(name)\(quantity > 1 ? " × \(quantity)" : "") for \(try await displayPrice(transaction)) — transaction \(transaction.id).")
            }
            if let change { lines.append("The App Store noted: \(change.summary).") }
            if let warning = purchase.warning {
                console.err("storefront: warning: \(warning)")
            } else if !purchase.isFinished {
                lines.append("Not finished: finishTransactions is false, so the app \"crashed\" before finish(). It is delivered again at the next launch.")
            }
        case .userCancelled:
            lines.append("The purchase of \(name) was cancelled (userCancelled).")
        case .pending(let request):
            lines.append("\(request.reason.sentence(for: name)) Request \(request.id); answer with: \(request.reason.nextStep(id: request.id))")
        }
        return Report(json: json, lines)
    }

    func restore() async throws -> Report {
        let restored = try await app.sync()
        let json = JSON.object(["count": .integer(restored.count), "restored": .array(restored.map(\.json))])
        return Report(json: json, ["Restored \(restored.count) purchase\(restored.count == 1 ? "" : "s")."]
                      + restored.map { "  \(TerminalText.sanitized($0.productID))" })
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
                      request.reason.nextStep(id: request.id))
        }
        return Report(json: json, table.rendered)
    }

    func entitlements() async throws -> Report {
        let entitlements = try await app.currentEntitlements()
        let renewals = try await app.renewalInfo()
        let json = JSON.object([
            "account": .string(store.account),
            "entitlements": .array(entitlements.map(\.json)),
            "renewalInfo": .object(renewals.sorted { $0.key < $1.key }.map { JSON.Member($0.key, $0.value.json) }),
        ])
        guard !entitlements.isEmpty else { return Report(json: json, "\(TerminalText.sanitized(store.account)) owns nothing.") }
        var table = Table("PRODUCT ID", "TYPE", "TRANSACTION", "PURCHASED", "EXPIRES")
        for transaction in entitlements {
            table.add(transaction.productID, transaction.productType.rawValue, String(transaction.id),
                      transaction.purchaseDate.iso8601, transaction.expirationDate?.iso8601 ?? "")
        }
        return Report(json: json, table.rendered)
    }

    func consume(_ productID: String, quantity: Int) async throws -> Report {
        let balance = try await app.consume(productID, quantity: quantity)
        return Report(json: .object(["productID": .string(productID), "consumed": .integer(quantity), "balance": .integer(balance)]),
                      "Consumed \(quantity) of \(TerminalText.sanitized(productID)); balance \(balance).")
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
            if invocation.json {
                console.out(JSON.object(["verification": .string("unverified"), "reason": .string(error.description)]).serialized())
            }
            throw VerifyFailed(reason: error.description)
        }
    }
}
