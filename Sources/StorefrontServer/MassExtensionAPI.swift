import Foundation
import StoreEngine

/// Extend Subscription Renewal Dates for All Active Subscribers, and its status.
extension ServerAPI {
    /// The fields an extension request shares with the single one: days, reason, identifier.
    /// This reads their types; the engine's ``FaceValidation`` decides their ranges (days 1–90,
    /// reason 0–3, identifier 1–128 characters), as it does for every front end.
    static func extensionTerms(_ body: JSON) throws -> (days: Int, reasonCode: Int, identifier: String) {
        guard case .number(let daysText)? = body["extendByDays"], let days = Int(daysText) else { throw APIError.invalidExtendByDays }
        guard case .number(let reasonText)? = body["extendReasonCode"], let reason = Int(reasonText) else {
            throw APIError.invalidExtendReason
        }
        guard case .string(let identifier)? = body["requestIdentifier"] else { throw APIError.invalidRequestIdentifier }
        try APIError.checking { () throws(InputError) in
            try FaceValidation.checkExtension(days: days, reasonCode: reason)
            try FaceValidation.checkRequestIdentifier(identifier)
        }
        return (days, reason, identifier)
    }

    /// `POST /inApps/v1/subscriptions/extend/mass` → `{"requestIdentifier": …}`.
    func massExtend(_ request: HTTPRequest) async throws -> JSON {
        guard let body = try? JSON.parse(request.body), case .object = body else { throw APIError.badRequest }
        let (days, reasonCode, identifier) = try Self.extensionTerms(body)
        guard case .string(let productID)? = body["productId"], !productID.isEmpty else { throw APIError.invalidProductID }
        var storefronts: [String] = []
        switch body["storefrontCountryCodes"] {
        case nil, .null?: break
        case .array(let codes)?:
            guard !codes.isEmpty else { throw APIError.invalidEmptyStorefronts }
            for code in codes {
                // ISO 3166-1 alpha-3, as the transactions' `storefront`.
                guard case .string(let text) = code, text.count == 3, text.allSatisfy({ $0.isASCII && $0.isUppercase })
                else { throw APIError.invalidStorefront }
                storefronts.append(text)
            }
        default: throw APIError.invalidStorefront
        }
        do {
            let made = try await face.extendAllSubscribers(productID: productID, days: days, reasonCode: reasonCode,
                                                           requestIdentifier: identifier, storefrontCountryCodes: storefronts)
            return .object(["requestIdentifier": .string(made.requestIdentifier)])
        } catch MassExtensionError.invalidProductID {
            throw APIError.invalidProductID
        } catch let error as InputError {
            throw APIError(error)
        }
    }

    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
    func massExtensionStatus(productID: String, requestIdentifier: String) async throws -> JSON {
        try APIError.checking { () throws(InputError) in try FaceValidation.checkRequestIdentifier(requestIdentifier) }
        guard let found = try await face.massExtension(productID: productID, requestIdentifier: requestIdentifier) else {
            throw APIError.statusRequestNotFound
        }
        return .object([
            "requestIdentifier": .string(found.requestIdentifier),
            "complete": .bool(true),
            "completeDate": .integer(Int64((found.completeDate.timeIntervalSince1970 * 1000).rounded())),
            "succeededCount": .integer(found.succeededCount),
            "failedCount": .integer(found.failedCount),
        ])
    }
}
