import Foundation
import StoreEngine
import StorefrontUI

/// `approve ID`: a parent approves an Ask to Buy request.
struct ApproveCommand: StorefrontCommand {
    var requestID: Int64

    static let help = CommandHelp(
        name: "approve", usage: "approve REQUEST_ID [--json]",
        summary: "Approve an Ask to Buy request, as the parent",
        details: """
            Completes a purchase pending Ask to Buy approval (REQUEST_ID: transactions --pending
            lists the requests): it is charged and dated now, and reaches the app as an update (a
            running paywall shows it within a second).
            """,
        operands: [.text])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        return Self(requestID: try line.requestID())
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        session.completed(try await session.appStore.approveReporting(requestID))
    }
}

/// `decline ID`: a parent declines an Ask to Buy request.
struct DeclineCommand: StorefrontCommand {
    var requestID: Int64

    static let help = CommandHelp(
        name: "decline", usage: "decline REQUEST_ID [--json]",
        summary: "Decline an Ask to Buy request, as the parent",
        details: """
            Declines a purchase pending Ask to Buy approval (REQUEST_ID: transactions --pending
            lists the requests): nothing is charged or delivered.
            """,
        operands: [.text])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        return Self(requestID: try line.requestID())
    }

    func run(in session: Session) async throws -> Report? {
        try await session.changed(try await session.appStore.declineReporting(requestID))
    }
}

/// `resolve ID`: the customer completes an interrupted purchase.
struct ResolveCommand: StorefrontCommand {
    var requestID: Int64

    static let help = CommandHelp(
        name: "resolve", usage: "resolve REQUEST_ID [--json]",
        summary: "Complete an interrupted purchase",
        details: """
            Completes a purchase that interruptedPurchases left pending (REQUEST_ID: transactions
            --pending lists the requests), as when the user has accepted the terms: it is charged
            now and reaches the app as an update.
            """,
        operands: [.text])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        return Self(requestID: try line.requestID())
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        session.completed(try await session.appStore.resolveReporting(requestID))
    }
}

/// `refund ID`: the App Store refunds a transaction.
struct RefundCommand: StorefrontCommand {
    var transactionID: Int64
    var reason: Transaction.RevocationReason = .other
    var share: RefundShare = .full

    static let help = CommandHelp(
        name: "refund", usage: "refund TRANSACTION_ID [--reason developerIssue|other] [--prorated PERCENT|remaining] [--json]",
        summary: "Refund a purchase: revocationDate and revocationReason are set",
        details: """
            Revokes the transaction (reason other unless given): the entitlement goes at once
            and the paywall's checkmark with it; a refunded consumable is taken from the app's
            balance (never below zero). The transaction is signed anew with its revocation.
            The whole purchase is refunded (revocationType REFUND_FULL, revocationPercentage
            100000) unless --prorated gives a share: a percentage with up to three decimals
            (33.333), or remaining for a subscription's period left (REFUND_PRORATED).
            """,
        options: [SharedOptions.reason.spec, prorated.spec], operands: [.text])

    /// A share (33.333, up to three decimals) or `remaining`.
    static let prorated = Option<RefundShare>(
        spec: OptionSpec("--prorated", value: "PERCENT", kind: .words(["remaining"]),
                         "give back a share (33.333, up to three decimals) or remaining (a subscription's period left); default the whole"),
        refusal: { "--prorated takes a percentage more than 0 and less than 100 with up to three decimals (33.333), or remaining, not \"\($0)\"" },
        read: { text in
            if text == "remaining" { return .timeRemaining }
            guard let milliunits = RefundShare.milliunits(percent: text), FaceValidation.proratedRefundShares.contains(milliunits)
            else { return nil }
            return .prorated(milliunits: milliunits)
        })

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        return Self(transactionID: try line.transactionID(), reason: try line.value(SharedOptions.reason) ?? .other,
                    share: try line.value(prorated) ?? .full)
    }

    func run(in session: Session) async throws -> Report? {
        try await session.changed(try await session.appStore.refundReporting(transactionID, reason: reason, share: share))
    }
}

/// `delete-transaction ID`: the Transaction Manager's Delete.
struct DeleteTransactionCommand: StorefrontCommand {
    var transactionID: Int64

    static let help = CommandHelp(
        name: "delete-transaction", usage: "delete-transaction TRANSACTION_ID [--json]",
        summary: "Delete a transaction from the account's history",
        details: """
            Removes the transaction, as the Transaction Manager's Delete: the App Store forgets
            it, so the product can be bought again.
            """,
        operands: [.text])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        return Self(transactionID: try line.transactionID())
    }

    func run(in session: Session) async throws -> Report? {
        try await session.deleteTransaction(transactionID)
    }
}

/// `status [GROUP_ID]`: each subscription group's renewal state and info.
struct StatusCommand: StorefrontCommand {
    var groupID: String?

    static let help = CommandHelp(
        name: "status", usage: "status [GROUP_ID] [--json]",
        summary: "Each subscription group's renewal state and renewal info",
        details: """
            Per subscription group the account has subscribed to: the RenewalState (subscribed,
            expired, inBillingRetryPeriod, inGracePeriod, revoked), the current product, whether
            it will auto-renew and to what (autoRenewPreference: a downgrade waits here), the
            renewal date, the expirationReason and the grace period's end. --json adds the
            signed renewal info (JWSRenewalInfoDecodedPayload names).
            """,
        operands: [.group])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        guard line.args.count <= 1 else { throw UsageError(description: "status takes at most a GROUP_ID", command: line.name) }
        return Self(groupID: line.args.first)
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? { try await session.status(groupID) }
}

/// `auto-renew GROUP on|off`: a subscription's willAutoRenew.
struct AutoRenewCommand: StorefrontCommand {
    /// A subscription group id or the id of one of its products.
    var group: String
    var on: Bool

    static let help = CommandHelp(
        name: "auto-renew", usage: "auto-renew GROUP on|off [--json]",
        summary: "Turn a subscription's auto-renew on or off (willAutoRenew)",
        details: """
            Off, the subscription stays active to the end of its period and then expires with
            expirationReason autoRenewDisabled. GROUP is a subscription group id or the id of one
            of its products.
            """,
        operands: [.group, .words(["on", "off"])])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let args = line.args
        guard args.count == 2, ["on", "off"].contains(args[1]) else {
            throw UsageError(description: "auto-renew takes a GROUP (or a subscription's product id) and on or off", command: line.name)
        }
        return Self(group: args[0], on: args[1] == "on")
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        try await session.reported(try await session.appStore.setAutoRenewReporting(groupID: group, on), group: group)
    }
}

/// `expire GROUP`: a subscription ended now.
struct ExpireCommand: StorefrontCommand {
    /// A subscription group id or the id of one of its products.
    var group: String

    static let help = CommandHelp(
        name: "expire", usage: "expire GROUP [--json]",
        summary: "End a subscription now",
        details: "Cuts the current period short now; the subscription does not renew (autoRenewDisabled).",
        operands: [.group])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "a GROUP (or a subscription's product id)")
        try line.allow()
        return Self(group: line.args[0])
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        try await session.reported(try await session.appStore.expireSubscriptionReporting(groupID: group), group: group)
    }
}

/// `renew GROUP`: a subscription renewed now.
struct RenewCommand: StorefrontCommand {
    /// A subscription group id or the id of one of its products.
    var group: String

    static let help = CommandHelp(
        name: "renew", usage: "renew GROUP [--json]",
        summary: "Renew a subscription now",
        details: """
            Ends the current period now and adds the renewal transaction at once (new id, same
            originalID, reason renew), without waiting for the clock.
            """,
        operands: [.group])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "a GROUP (or a subscription's product id)")
        try line.allow()
        return Self(group: line.args[0])
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        try await session.reported(try await session.appStore.renewSubscriptionReporting(groupID: group), group: group)
    }
}

/// The commands that act as the App Store, a parent or another device, on the App Store's face.
extension Session {
    func buyOutside(_ productID: String, quantity: Int) async throws -> Report? {
        let reported = try await appStore.purchaseOutsideAppReporting(productID, quantity: quantity)
        guard case .boughtOutside(let outcome, _) = reported, let transaction = outcome.transaction else { return nil }
        return Report(reported, ["result": .string(outcome.result.name), "outcome": .string(outcome.name),
                                 "transaction": transaction.json, "alreadyOwned": .bool(outcome.name == "alreadyOwned")])
    }

    /// Reports an approved or resolved request: purchased, or a change of plan scheduled.
    func completed(_ reported: ActionOutcome) -> Report {
        switch reported {
        case .approved(_, let outcome, _), .resolved(_, let outcome, _):
            let scheduled: SubscriptionChange? = if case .changeScheduled(let change) = outcome { change } else { nil }
            return Report(reported, ["outcome": .string(outcome.name), "transaction": outcome.transaction?.json,
                                     "change": scheduled?.json])
        default:
            return Report(reported, [:])
        }
    }

    /// Reports a transaction an App Store action changed (decline, refund).
    func changed(_ reported: ActionOutcome) async throws -> Report {
        switch reported {
        case .refunded(let transaction, _, let shares):
            return Report(reported, ["transaction": transaction.json, "revokedShares": .integer(Int64(shares))])
        case .declined(let id, _):
            return Report(reported, ["transaction": try await appStore.transaction(id: id).json])
        default:
            return Report(reported, [:])
        }
    }

    func deleteTransaction(_ id: Int64) async throws -> Report {
        try await appStore.deleteTransaction(id)
        return Report(json: .object(["deleted": .integer(id)]),
                      "Deleted transaction \(id) from \(TerminalText.sanitized(store.account))'s history.")
    }

    /// What a subscription control did, in the engine's sentence, over the group's status.
    func reported(_ outcome: ActionOutcome, group: String) async throws -> Report {
        try await status(group, headline: TerminalText.sanitized(outcome.sentence)).saying(outcome)
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
            if let next = status.nextProductID { notes.append("next: \(next)") }
            if let offer = status.renewalOfferText { notes.append(offer) }
            if let reason = info.expirationReason { notes.append("expirationReason \(reason.rawValue)") }
            if let grace = info.gracePeriodExpirationDate { notes.append("grace until \(grace.iso8601)") }
            if let increase = status.priceIncreaseText { notes.append(increase) }
            if !info.eligibleWinBackOfferIDs.isEmpty { notes.append("win-back: \(info.eligibleWinBackOfferIDs.joined(separator: ", "))") }
            if let commitment = status.transaction.commitment, let terms = status.transaction.monthlyPlanTerms,
               let payment = status.transaction.commitmentPayment, let after = info.commitmentInfo {
                // A monthly plan: where the commitment stands, and what happens when it ends.
                notes.append("\(terms), \(payment); commitment \(after.willAutoRenew ? "renews" : "ends") \(commitment.commitmentExpiresDate.iso8601)")
            }
            let date = info.renewalDate ?? status.transaction.expirationDate
            table.add(status.groupID, status.state.rawValue, status.transaction.productID,
                      info.willAutoRenew ? "on" : "off", date?.iso8601 ?? "", notes.joined(separator: ", "))
        }
        lines.append(table.rendered)
        return Report(json: json, lines)
    }
}
