import Foundation
import StoreEngine

/// Apple's legacy receipt endpoint, `POST /verifyReceipt` (as `buy.itunes.apple.com`) and
/// `POST /sandbox/verifyReceipt` (as `sandbox.itunes.apple.com`), on the App Store face.
///
/// As Apple's: no bearer token (the shared secret travels in the body), HTTP 200 whatever
/// the outcome, the outcome in `status`; the body `{"receipt-data", "password",
/// "exclude-old-transactions"}`; the answer's names and string forms (`"1"`, dates three
/// ways) as Apple's `responseBody` documents them.
struct VerifyReceiptAPI: Sendable {
    let face: AppStoreFace

    /// The endpoint a path stands for; nil when the path is not verifyReceipt's.
    static func endpoint(_ path: String) -> VerifyReceiptEndpoint? {
        switch path {
        case "/verifyReceipt": .production
        case "/sandbox/verifyReceipt": .sandbox
        default: nil
        }
    }

    /// verifyReceipt's answer, or nil when the request is for another endpoint.
    static func answer(_ request: HTTPRequest, face: AppStoreFace) async -> HTTPResponse? {
        guard let endpoint = endpoint(request.path) else { return nil }
        return await VerifyReceiptAPI(face: face).respond(request, endpoint: endpoint)
    }

    func respond(_ request: HTTPRequest, endpoint: VerifyReceiptEndpoint) async -> HTTPResponse {
        let body: JSON
        do {
            body = try await answer(request, endpoint: endpoint)
        } catch {
            body = Self.status(.internalDataAccessError, environment: endpoint.rawValue)
        }
        return HTTPResponse(status: 200, body: Array(body.serialized(pretty: false).utf8),
                            headers: [("Content-Type", "application/json")])
    }

    func answer(_ request: HTTPRequest, endpoint: VerifyReceiptEndpoint) async throws -> JSON {
        guard request.method == "POST", let body = try? JSON.parse(request.body), case .object = body else {
            return Self.status(.unreadableRequest, environment: endpoint.rawValue)
        }
        guard case .string(let receiptData)? = body["receipt-data"] else {
            return Self.status(.malformedReceipt, environment: endpoint.rawValue)
        }
        var password: String?
        if case .string(let text)? = body["password"] { password = text }
        let excludeOld = body["exclude-old-transactions"] == .bool(true)
        let verification = try await face.verifyReceipt(receiptData: receiptData, password: password,
                                                        excludeOldTransactions: excludeOld, endpoint: endpoint)
        guard verification.status == .valid, let receipt = verification.receipt else {
            return Self.status(verification.status, environment: verification.environment)
        }
        var answer: [String: JSON] = [
            "status": .integer(0),
            "environment": .string(verification.environment),
            "receipt": Self.receiptJSON(receipt, requestDate: verification.requestDate),
        ]
        if verification.hasAutoRenewable {
            answer["latest_receipt_info"] = .array(verification.latestTransactions.map(Self.latestReceiptInfo))
            answer["latest_receipt"] = verification.latestReceipt.map { .string(Data($0).base64EncodedString()) }
            answer["pending_renewal_info"] = .array(verification.renewalInfo.map(Self.pendingRenewalInfo))
        }
        return Self.object(answer)
    }

    /// An object of fields gathered in a dictionary, its keys sorted (one order, every time).
    static func object(_ fields: [String: JSON]) -> JSON {
        .object(fields.sorted { $0.key < $1.key }.map { JSON.Member($0.key, $0.value) })
    }

    static func status(_ status: VerifyReceiptStatus, environment: String) -> JSON {
        .object(["status": .integer(status.rawValue), "environment": .string(environment)])
    }

    // MARK: - Apple's shapes

    /// `responseBody.Receipt`.
    static func receiptJSON(_ receipt: AppReceipt, requestDate: Date) -> JSON {
        var fields: [String: JSON] = [
            "receipt_type": .string(receipt.receiptType),
            // Apple assigns these in production only; the sandbox's are 0.
            "adam_id": .integer(0), "app_item_id": .integer(0), "download_id": .integer(0),
            "version_external_identifier": .integer(0),
            "bundle_id": .string(receipt.bundleID),
            "application_version": .string(receipt.appVersion),
            "original_application_version": .string(receipt.originalAppVersion),
            "in_app": .array(receipt.inAppPurchases.map { object(inAppFields($0)) }),
        ]
        dates(&fields, "receipt_creation_date", receipt.creationDate)
        dates(&fields, "request_date", requestDate)
        if let original = receipt.originalPurchaseDate { dates(&fields, "original_purchase_date", original) }
        if let expiration = receipt.expirationDate { dates(&fields, "expiration_date", expiration) }
        return Self.object(fields)
    }

    /// `responseBody.Receipt.In_app`: an in-app purchase receipt's fields, as strings.
    static func inAppFields(_ purchase: AppReceipt.InAppPurchase) -> [String: JSON] {
        var fields: [String: JSON] = [
            "quantity": .string(String(purchase.quantity)),
            "product_id": .string(purchase.productID),
            "transaction_id": .string(purchase.transactionID),
            "original_transaction_id": .string(purchase.originalTransactionID),
            "is_trial_period": .string(purchase.isTrialPeriod == true ? "true" : "false"),
        ]
        dates(&fields, "purchase_date", purchase.purchaseDate)
        dates(&fields, "original_purchase_date", purchase.originalPurchaseDate)
        if let expires = purchase.subscriptionExpirationDate { dates(&fields, "expires_date", expires) }
        if let cancelled = purchase.cancellationDate { dates(&fields, "cancellation_date", cancelled) }
        if let id = purchase.webOrderLineItemID { fields["web_order_line_item_id"] = .string(String(id)) }
        if let intro = purchase.isInIntroOfferPeriod { fields["is_in_intro_offer_period"] = .string(intro ? "true" : "false") }
        if let offer = purchase.promotionalOfferID { fields["promotional_offer_id"] = .string(offer) }
        return fields
    }

    /// `responseBody.Latest_receipt_info`: a transaction as the App Store keeps it now.
    static func latestReceiptInfo(_ transaction: Transaction) -> JSON {
        var fields = inAppFields(AppReceipt.InAppPurchase(transaction))
        fields["in_app_ownership_type"] = .string(transaction.ownershipType.appStoreName)
        if let group = transaction.subscriptionGroupID { fields["subscription_group_identifier"] = .string(group) }
        if transaction.isUpgraded { fields["is_upgraded"] = .string("true") }
        if let reason = transaction.revocationReason { fields["cancellation_reason"] = .string(String(reason.appStoreCode)) }
        if let token = transaction.appAccountToken { fields["app_account_token"] = .string(token.uuidString.lowercased()) }
        return Self.object(fields)
    }

    /// `responseBody.Pending_renewal_info`: one subscription's renewal information.
    static func pendingRenewalInfo(_ info: RenewalInfo) -> JSON {
        var fields: [String: JSON] = [
            "auto_renew_product_id": .string(info.autoRenewPreference),
            "auto_renew_status": .string(info.willAutoRenew ? "1" : "0"),
            "original_transaction_id": .string(String(info.originalTransactionID)),
            "product_id": .string(info.currentProductID),
        ]
        if let reason = info.expirationReason {
            fields["expiration_intent"] = .string(String(reason.appStoreCode))
            fields["is_in_billing_retry_period"] = .string(info.isInBillingRetry ? "1" : "0")
        } else if info.isInBillingRetry {
            fields["is_in_billing_retry_period"] = .string("1")
        }
        if let grace = info.gracePeriodExpirationDate { dates(&fields, "grace_period_expires_date", grace) }
        if let status = info.priceIncreaseStatus.appStoreCode { fields["price_increase_status"] = .string(String(status)) }
        if info.offerType == .promotional, let offer = info.offerID { fields["promotional_offer_id"] = .string(offer) }
        return Self.object(fields)
    }

    /// A date three ways, as Apple writes them: `NAME` (`2026-01-31 09:30:00 Etc/GMT`),
    /// `NAME_ms` (milliseconds, as a string) and `NAME_pst` (Pacific time).
    static func dates(_ fields: inout [String: JSON], _ name: String, _ date: Date) {
        fields[name] = .string(text(date, zone: "GMT", label: "Etc/GMT"))
        fields[name + "_ms"] = .string(String(Int64((date.timeIntervalSince1970 * 1000).rounded())))
        fields[name + "_pst"] = .string(text(date, zone: "America/Los_Angeles", label: "America/Los_Angeles"))
    }

    private static func text(_ date: Date, zone: String, label: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date) + " " + label
    }
}
