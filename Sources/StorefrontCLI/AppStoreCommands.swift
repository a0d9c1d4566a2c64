import Foundation
import StoreEngine
import StorefrontUI

/// The commands that act as the App Store, a parent or another device, on the App Store's face.
extension Session {
    func buyOutside(_ productID: String, quantity: Int) async throws -> Report? {
        let outcome = try await appStore.purchaseOutsideApp(productID, quantity: quantity)
        guard let transaction = outcome.transaction else { return nil }
        let json = JSON.object(["result": .string(outcome.result.name), "outcome": .string(outcome.name),
                                "transaction": transaction.json, "alreadyOwned": .bool(outcome.name == "alreadyOwned")])
        let name = try await displayName(productID)
        return switch outcome {
        case .alreadyOwned:
            Report(json: json, "The account owns \(name) already (transaction \(transaction.id)): nothing was charged.")
        case .changeScheduled(let change):
            Report(json: json, "Scheduled a \(change.kind.rawValue) to \(name) outside the app: nothing is charged now; it starts at the next renewal.")
        default:
            Report(json: json, "Purchased \(name) outside the app — transaction \(transaction.id). The app receives it as an update (a running paywall within a second; otherwise at its next launch).")
        }
    }

    /// Reports an approved or resolved request: purchased, or a change of plan scheduled.
    func completed(_ outcome: PurchaseOutcome, _ id: Int64, _ verb: String) async throws -> Report {
        let transaction = outcome.transaction!
        let scheduled: SubscriptionChange? = if case .changeScheduled(let change) = outcome { change } else { nil }
        let json = JSON.object(["outcome": .string(outcome.name), "transaction": transaction.json, "change": scheduled?.json])
        if let change = scheduled {
            return Report(json: json, "\(verb) request \(id): a \(change.kind.rawValue) to \(try await displayName(change.toProductID)), from the next renewal (\(change.effectiveDate?.iso8601 ?? "")); nothing is charged now.")
        }
        let name = try await displayName(transaction.productID)
        return Report(json: json, "\(verb) transaction \(transaction.id) (\(name)): purchased. The app receives it as an update.")
    }

    /// Reports a transaction an App Store action changed (decline, refund).
    func changed(_ transaction: Transaction, _ verb: String) async throws -> Report {
        let json = JSON.object(["transaction": transaction.json])
        let name = try await displayName(transaction.productID)
        if verb == "Refunded" {
            return Report(json: json, "Refunded transaction \(transaction.id) (\(name)): revoked (\(transaction.revocationReason?.rawValue ?? "other")); the entitlement is gone.")
        }
        return Report(json: json, "\(verb) transaction \(transaction.id) (\(name)): \(transaction.status.rawValue).")
    }

    func deleteTransaction(_ id: Int64) async throws -> Report {
        try await appStore.deleteTransaction(id)
        return Report(json: .object(["deleted": .integer(id)]),
                      "Deleted transaction \(id) from \(TerminalText.sanitized(store.account))'s history.")
    }

    func status(_ group: String?, headline: String? = nil) async throws -> Report {
        let groupID = group.flatMap { store.catalog.product(id: $0)?.subscription?.groupID } ?? group
        let statuses = try await appStore.subscriptionStatuses().filter { groupID == nil || $0.groupID == groupID }
        if let groupID, statuses.isEmpty { throw StoreError.noSubscription(groupID: groupID) }
        let json = JSON.object([
            "account": .string(store.account),
            "now": .date(try await testSession.clock().now),
            "statuses": .array(statuses.map(\.json)),
        ])
        var lines = headline.map { [$0] } ?? []
        guard !statuses.isEmpty else {
            return Report(json: json, lines + ["\(TerminalText.sanitized(store.account)) has no subscriptions."])
        }
        var table = Table("GROUP", "STATE", "PRODUCT", "AUTO-RENEW", "RENEWS / EXPIRED", "NOTES")
        for status in statuses {
            let info = status.renewalInfo
            var notes: [String] = []
            if info.autoRenewPreference != info.currentProductID { notes.append("next: \(info.autoRenewPreference)") }
            if let reason = info.expirationReason { notes.append("expirationReason \(reason.rawValue)") }
            if let grace = info.gracePeriodExpirationDate { notes.append("grace until \(grace.iso8601)") }
            if info.priceIncreaseStatus != .noIncreasePending {
                notes.append("price increase \(info.priceIncreaseStatus.rawValue), renews at \(DecimalText.format(info.renewalPrice))")
            }
            if !info.eligibleWinBackOfferIDs.isEmpty { notes.append("win-back: \(info.eligibleWinBackOfferIDs.joined(separator: ", "))") }
            let date = info.renewalDate ?? status.transaction.expirationDate
            table.add(status.groupID, status.state.rawValue, status.transaction.productID,
                      info.willAutoRenew ? "on" : "off", date?.iso8601 ?? "", notes.joined(separator: ", "))
        }
        lines.append(table.rendered)
        return Report(json: json, lines)
    }
}
