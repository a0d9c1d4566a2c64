import Foundation
import StoreEngine
import StorefrontUI

/// `refund-request [begin | approve | decline]`: refund requests, as the app and as the App Store.
enum RefundRequestCommand: StorefrontCommand {
    /// `refund-request`: every refund request.
    case list
    /// `begin ID`: as the app (`Transaction.beginRefundRequest`).
    case begin(transactionID: Int64, reason: RefundRequestReason)
    /// `approve ID [--reason]` / `decline ID`: as the App Store.
    case approve(transactionID: Int64, reason: Transaction.RevocationReason?)
    case decline(transactionID: Int64)

    static var help: CommandHelp { RefundRequestCommands.help }

    static let requestReason = Option<RefundRequestReason>.choice(
        "--request-reason", value: "REASON", RefundRequestReason.allCases, name: { $0.rawValue },
        "begin: why the customer asks (the refund sheet's reasons; default other)")

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        // --reason is the App Store's (approve), --request-reason the customer's (begin).
        let args = line.args
        try line.allow(refusing: (args.first == "approve" ? [] : [SharedOptions.reason.spec])
            + (args.first == "begin" ? [] : [requestReason.spec]))
        let (reason, requestReason) = (try line.value(SharedOptions.reason), try line.value(requestReason))
        func id(_ text: String) throws(UsageError) -> Int64 {
            guard let id = Int64(text), id > 0 else {
                throw UsageError(description: "refund-request \(args[0]) needs a transaction id (a whole number), not \"\(text)\"",
                                 command: line.name)
            }
            return id
        }
        switch (args.first, args.count) {
        case (nil, _), ("list", 1): return .list
        case ("begin", 2): return .begin(transactionID: try id(args[1]), reason: requestReason ?? .other)
        case ("approve", 2): return .approve(transactionID: try id(args[1]), reason: reason)
        case ("decline", 2): return .decline(transactionID: try id(args[1]))
        default:
            throw UsageError(description: "refund-request takes nothing, begin TRANSACTION_ID, approve TRANSACTION_ID or decline TRANSACTION_ID",
                             command: line.name)
        }
    }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .list: try await session.refundRequests()
        case .begin(let id, let reason): try await session.beginRefundRequest(id, reason: reason)
        case .approve(let id, let reason): try await session.decideRefundRequest(id, approve: true, reason: reason)
        case .decline(let id): try await session.decideRefundRequest(id, approve: false, reason: nil)
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
        var report = Report(reported, ["status": .string("success"), "request": request.json(productID: transaction.productID),
                                       "transaction": transaction.json])
        // The sentence names the commands; here, the whole line to paste, for this store.
        if request.status == .pending {
            let command = "\(ShellWord.storefront(store: store.path)) refund-request"
            report.lines.append("Decide it as the App Store: \(command) approve \(id), or \(command) decline \(id)")
        }
        return report
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
