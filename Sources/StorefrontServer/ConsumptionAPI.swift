import Foundation
import StoreEngine

extension APIError {
    static let invalidAccountTenure = APIError(status: 400, code: 4000032, message: "Invalid request. The account tenure field is invalid.")
    static let invalidAppAccountToken = APIError(status: 400, code: 4000033, message: "Invalid request. The app account token field is invalid.")
    static let invalidConsumptionStatus = APIError(status: 400, code: 4000034, message: "Invalid request. The consumption status field is invalid.")
    static let invalidCustomerConsented = APIError(status: 400, code: 4000035, message: "Invalid request. The customer consented field is required and must indicate the customer consented.")
    static let invalidDeliveryStatus = APIError(status: 400, code: 4000036, message: "Invalid request. The delivery status field is invalid.")
    static let invalidLifetimeDollarsPurchased = APIError(status: 400, code: 4000037, message: "Invalid request. The lifetime dollars purchased field is invalid.")
    static let invalidLifetimeDollarsRefunded = APIError(status: 400, code: 4000038, message: "Invalid request. The lifetime dollars refunded field is invalid.")
    static let invalidPlatform = APIError(status: 400, code: 4000039, message: "Invalid request. The platform field is invalid.")
    static let invalidPlayTime = APIError(status: 400, code: 4000040, message: "Invalid request. The playtime field is invalid.")
    static let invalidSampleContentProvided = APIError(status: 400, code: 4000041, message: "Invalid request. The sample content provided field is invalid.")
    static let invalidUserStatus = APIError(status: 400, code: 4000042, message: "Invalid request. The user status field is invalid.")
    static let transactionTypeNotSupported = APIError(status: 400, code: 4000047, message: "Invalid request. The transaction id parameter must represent a supported in-app purchase.")
    static let invalidRefundPreference = APIError(status: 400, code: 4000044, message: "Invalid request. The refund preference field is invalid.")
    static let appTransactionIDNotSupported = APIError(status: 400, code: 4000048, message: "Invalid request. App transactions aren't supported by this endpoint.")
    static let consumptionPercentageAutoRenewable = APIError(status: 400, code: 4000209, message: "Invalid request. The consumption percentage field is not supported for auto-renewable subscription transactions.")
    // Apple names these two (ConsumptionPercentageOutOfRangeError, UndeliveredConsumptionPercentageNonZeroError)
    // but publishes no errorCode for them, nor does its library: GeneralBadRequest's code, each with its own message.
    static let consumptionPercentageOutOfRange = APIError(status: 400, code: 4000000, message: "Invalid request. The consumption percentage is outside the valid range.")
    static let undeliveredConsumptionPercentageNonZero = APIError(status: 400, code: 4000000, message: "Invalid request. The consumption percentage must be zero for the provided delivery status.")
}

/// Send Consumption Information: Apple's current endpoint (v2, App Store Server API 1.19) and
/// the one before it (v1, for Advanced Commerce API purchases now). The store keeps nothing of
/// what is sent (its refund decisions are the tester's, `refund-request approve|decline`); it
/// checks the body as Apple does, so a backend's request that Apple refuses is refused here.
extension ServerAPI {
    /// `PUT /inApps/v2/transactions/consumption/{transactionId}` with a `ConsumptionRequest`:
    /// any product type of the purchaser's own (not a family member's share, not an
    /// `appTransactionId`); 202 Accepted, no body.
    func consumptionV2(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        if try await face.isAppTransactionID(try Self.transactionID(text)) { throw APIError.appTransactionIDNotSupported }
        let found = try await transaction(text)
        guard found.ownershipType == .purchased else { throw APIError.familyTransactionNotSupported }
        let body = try Self.objectBody(request)
        guard body["customerConsented"] == .bool(true) else { throw APIError.invalidCustomerConsented }
        guard case .bool? = body["sampleContentProvided"] else { throw APIError.invalidSampleContentProvided }
        guard case .string(let name)? = body["deliveryStatus"], let delivery = DeliveryStatus(rawValue: name) else {
            throw APIError.invalidDeliveryStatus
        }
        var preference: RefundPreference?
        switch body["refundPreference"] {
        case nil, .null?: break
        case .string(let value)? where RefundPreference(rawValue: value) != nil: preference = RefundPreference(rawValue: value)
        default: throw APIError.invalidRefundPreference
        }
        // consumptionPercentage, in milliunits (0–100,000), as Apple's consumptionPercentage page has it:
        // none for an auto-renewable subscription (Apple works it out from the time elapsed), 0 unless
        // DELIVERED, and between 0 and 100,000 (both excluded) to ask for GRANT_PRORATED.
        var percentage: Int?
        switch body["consumptionPercentage"] {
        case nil, .null?: break
        case .number(let literal)?:
            guard let value = Int(literal), (0...100_000).contains(value) else { throw APIError.consumptionPercentageOutOfRange }
            percentage = value
        default: throw APIError.consumptionPercentageOutOfRange
        }
        if found.productType == .autoRenewable {
            if percentage != nil { throw APIError.consumptionPercentageAutoRenewable }
        } else {
            if delivery != .delivered, let percentage, percentage != 0 { throw APIError.undeliveredConsumptionPercentageNonZero }
            if preference == .grantProrated, !(1..<100_000).contains(percentage ?? 0) {
                throw APIError.consumptionPercentageOutOfRange
            }
        }
        return HTTPResponse(status: 202)
    }

    /// `PUT /inApps/v1/transactions/consumption/{transactionId}` with a `ConsumptionRequestV1`:
    /// a consumable or an auto-renewable subscription, every required field present with one of
    /// its values (0 meaning "undeclared" where Apple has one), `customerConsented` true. 202, no body.
    func consumptionV1(_ text: String, _ request: HTTPRequest) async throws -> JSON? {
        let found = try await transaction(text)
        guard found.productType == .consumable || found.productType == .autoRenewable else {
            throw APIError.transactionTypeNotSupported
        }
        let body = try Self.objectBody(request)
        guard body["customerConsented"] == .bool(true) else { throw APIError.invalidCustomerConsented }
        func integer(_ name: String, in range: ClosedRange<Int>, _ error: APIError) throws {
            guard case .number(let literal)? = body[name], let value = Int(literal), range.contains(value) else { throw error }
        }
        try integer("consumptionStatus", in: 0...3, .invalidConsumptionStatus)
        try integer("platform", in: 0...2, .invalidPlatform)
        guard case .bool? = body["sampleContentProvided"] else { throw APIError.invalidSampleContentProvided }
        try integer("deliveryStatus", in: 0...5, .invalidDeliveryStatus)
        // A UUID, or the empty string when the purchase has none.
        guard case .string(let token)? = body["appAccountToken"], token.isEmpty || UUID(uuidString: token) != nil else {
            throw APIError.invalidAppAccountToken
        }
        try integer("accountTenure", in: 0...7, .invalidAccountTenure)
        try integer("playTime", in: 0...7, .invalidPlayTime)
        try integer("lifetimeDollarsRefunded", in: 0...7, .invalidLifetimeDollarsRefunded)
        try integer("lifetimeDollarsPurchased", in: 0...7, .invalidLifetimeDollarsPurchased)
        try integer("userStatus", in: 0...4, .invalidUserStatus)
        switch body["refundPreference"] {
        case nil, .null?: break
        case .number(let literal)? where Int(literal).map({ (0...3).contains($0) }) == true: break
        default: throw APIError.invalidRefundPreference
        }
        return nil
    }
}

/// `DeliveryStatus` of the v2 request, Apple's raw values.
package enum DeliveryStatus: String, CaseIterable {
    case delivered = "DELIVERED"
    case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
    case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
    case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
    case undeliveredOther = "UNDELIVERED_OTHER"
}

/// `RefundPreference` of the v2 request, Apple's raw values.
package enum RefundPreference: String, CaseIterable {
    case decline = "DECLINE"
    case grantFull = "GRANT_FULL"
    case grantProrated = "GRANT_PRORATED"
}
