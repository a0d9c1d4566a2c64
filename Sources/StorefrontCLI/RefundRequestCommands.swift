import Foundation
import StoreEngine
import StorefrontUI

/// `refund-request [begin | approve | decline]`: refund requests, as the app and as the App Store.
enum RefundRequestCommand: StorefrontCommand {
    static var help: CommandHelp { RefundRequestCommands.help }

    static let requestReason = Option<RefundRequestReason>.choice(
        "--request-reason", value: "REASON", RefundRequestReason.allCases, name: { $0.rawValue },
        "begin: why the customer asks (the refund sheet's reasons; default other)")

    static func parse(_ line: CommandArguments) throws(UsageError) -> Command {
        // --reason is the App Store's (approve), --request-reason the customer's (begin).
        try line.allow(refusing: (line.args.first == "approve" ? [] : [SharedOptions.reason.spec])
            + (line.args.first == "begin" ? [] : [requestReason.spec]))
        return try RefundRequestCommands.command(line.args, reason: try line.value(SharedOptions.reason),
                                                 requestReason: try line.value(requestReason))
    }

    static func run(_ command: Command, in session: Session) async throws -> Report? {
        switch command {
        case .refundRequests: try await session.refundRequests()
        case .refundRequestBegin(let id, let reason): try await session.beginRefundRequest(id, reason: reason)
        case .refundRequestApprove(let id, let reason): try await session.decideRefundRequest(id, approve: true, reason: reason)
        case .refundRequestDecline(let id): try await session.decideRefundRequest(id, approve: false, reason: nil)
        default: nil
        }
    }
}

/// `refund-request …`: refund requests made from the app, and the App Store's decision.
enum RefundRequestCommands {
    static let help = CommandHelp(
        name: "refund-request",
        usage: "refund-request [begin TRANSACTION_ID [--request-reason REASON] | approve TRANSACTION_ID [--reason developerIssue|other] | decline TRANSACTION_ID] [--json]",
        summary: "Refund requests from the app (Transaction.beginRefundRequest), and the App Store's decision",
        details: """
            Lists every refund request in the store file (all accounts), oldest first: the transaction,
            its account and product, the customer's reason, when it was asked and what the App Store
            decided. For a tester in a second terminal while the app waits.
              begin TRANSACTION_ID     as the app's Transaction.beginRefundRequest: the account asks for a
                                       refund of its transaction, --request-reason unintendedPurchase,
                                       fulfillmentIssue, unsatisfiedWithPurchase, legal or other (the
                                       refund sheet's reasons; default other). For a consumable or an
                                       auto-renewable subscription the server hears CONSUMPTION_REQUEST
                                       with consumptionRequestReason, as Apple asks for consumption
                                       data then. Asking twice is duplicateRequest; a transaction that
                                       is refunded, not purchased, or shared by family is failed.
              approve TRANSACTION_ID   the App Store grants it: refunded now (revocationReason
                                       developerIssue for a fulfillmentIssue, else other, unless
                                       --reason says), REFUND; the app gets the revocation as an update
              decline TRANSACTION_ID   the App Store declines it: REFUND_DECLINED, the app sees nothing
            The setting refundRequestOutcome decides each new request at once instead: approve or
            decline (default wait, for approve or decline here).
            """,
        options: [SharedOptions.reason.spec, RefundRequestCommand.requestReason.spec], operands: [.words(["approve", "decline", "begin"]), .text])

    /// `refund-request [list | begin ID | approve ID | decline ID]`.
    static func command(_ args: [String], reason: Transaction.RevocationReason?,
                        requestReason: RefundRequestReason?) throws(UsageError) -> Command {
        func id(_ text: String) throws(UsageError) -> Int64 {
            guard let id = Int64(text), id > 0 else {
                throw UsageError(description: "refund-request \(args[0]) needs a transaction id (a whole number), not \"\(text)\"",
                                 command: "refund-request")
            }
            return id
        }
        switch (args.first, args.count) {
        case (nil, _), ("list", 1): return .refundRequests
        case ("begin", 2): return .refundRequestBegin(transactionID: try id(args[1]), reason: requestReason ?? .other)
        case ("approve", 2): return .refundRequestApprove(transactionID: try id(args[1]), reason: reason)
        case ("decline", 2): return .refundRequestDecline(transactionID: try id(args[1]))
        default:
            throw UsageError(description: "refund-request takes nothing, begin TRANSACTION_ID, approve TRANSACTION_ID or decline TRANSACTION_ID",
                             command: "refund-request")
        }
    }
}

extension Session {
    func refundRequests() async throws -> Report {
        let requests = try await appStore.refundRequests()
        var entries: [JSON] = []
        var table = Table("TRANSACTION", "ACCOUNT", "PRODUCT ID", "REASON", "ASKED", "STATUS", "DECIDED")
        for request in requests {
            let productID = try await appStore.transaction(anyAccountID: request.transactionID)?.productID ?? ""
            entries.append(request.json(productID: productID))
            table.add(String(request.transactionID), TerminalText.sanitized(request.account), TerminalText.sanitized(productID),
                      request.reason.rawValue, request.requestDate.iso8601, request.status.rawValue,
                      request.decisionDate?.iso8601 ?? "")
        }
        let json = JSON.object(["requests": .array(entries)])
        guard !requests.isEmpty else {
            return Report(json: json, "No refund requests: the app asks with Transaction.beginRefundRequest (or: storefront refund-request begin TRANSACTION_ID).")
        }
        return Report(json: json, table.rendered)
    }

    func beginRefundRequest(_ id: Int64, reason: RefundRequestReason) async throws -> Report {
        let (request, reported) = try await app.beginRefundRequestReporting(transactionID: id, reason: reason)
        let transaction = try await app.transaction(id: id)
        return Report(reported, ["status": .string("success"), "request": request.json(productID: transaction.productID),
                                 "transaction": transaction.json])
    }

    func decideRefundRequest(_ id: Int64, approve: Bool, reason: Transaction.RevocationReason?) async throws -> Report {
        let request = approve ? try await appStore.approveRefundRequest(id, reason: reason) : try await appStore.declineRefundRequest(id)
        let transaction = try await appStore.transaction(anyAccountID: id)
        let name = try await displayName(transaction?.productID ?? "")
        let json = JSON.object(["request": request.json(productID: transaction?.productID ?? ""), "transaction": transaction?.json])
        if approve {
            return Report(json: json, "Approved the refund request for transaction \(id) (\(name)): refunded (\(transaction?.revocationReason?.rawValue ?? "other")); the app gets the revocation as an update.")
        }
        return Report(json: json, "Declined the refund request for transaction \(id) (\(name)): nothing changes for the app (REFUND_DECLINED for the server).")
    }
}

extension RefundRequest {
    func json(productID: String) -> JSON {
        .object([
            "transactionID": .integer(transactionID), "account": .string(account), "productID": .string(productID),
            "reason": .string(reason.rawValue), "consumptionRequestReason": .string(reason.appStoreName),
            "requestDate": .date(requestDate), "status": .string(status.rawValue), "decisionDate": .date(decisionDate),
        ])
    }
}
