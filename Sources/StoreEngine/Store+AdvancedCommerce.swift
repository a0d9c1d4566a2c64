import Foundation

/// An Advanced Commerce API in-app request, checked as the App Store checks one StoreKit sends
/// (`AdvancedCommerceProduct.purchase(compactJWS:…)`): a compact JWS the app's server signed with an
/// In-App Purchase key — here an offer key the store knows (`offer-keys`) — in Apple's header
/// (`alg` ES256, `kid`, `typ` JWT) and base claims (`iss`, `iat`, `aud` "advanced-commerce-api",
/// `bid`, `nonce`), its `request` claim the base64 JSON of the operation.
public struct AdvancedCommerceRequest: Sendable, Hashable {
    /// The operation, as Apple names it: only `CREATE_ONE_TIME_CHARGE` is bought here.
    public var operation: String
    /// `requestInfo.requestReferenceId`.
    public var requestReferenceID: UUID
    /// `requestInfo.appAccountToken`: the transaction's `appAccountToken`.
    public var appAccountToken: UUID?
    /// ISO 4217 currency, the tax code, and the storefront the request is priced for (optional).
    public var currency: String
    public var taxCode: String
    public var storefront: String?
    /// The item: its SKU, name, description and price in milliunits of `currency`.
    public var sku: String
    public var displayName: String
    public var description: String
    public var price: Int64

    /// The `aud` claim of an Advanced Commerce API in-app request.
    public static let audience = "advanced-commerce-api"
    /// The one operation the engine can buy: a one-time charge, as a purchase of the generic product.
    public static let oneTimeCharge = "CREATE_ONE_TIME_CHARGE"
    /// The in-app operations Apple lists that the engine cannot honour (no Advanced Commerce subscriptions).
    public static let subscriptionOperations = ["CREATE_SUBSCRIPTION", "MODIFY_SUBSCRIPTION", "REACTIVATE_SUBSCRIPTION"]
}

/// Why an Advanced Commerce request was refused: the name of Apple's Advanced Commerce API error
/// (`InvalidSignatureError`, `MalformedPayloadError`, `InvalidOperationError`, …) and what was wrong.
public struct AdvancedCommerceRequestFault: Error, Sendable, Hashable, CustomStringConvertible {
    /// Apple's error object name.
    public var error: String
    /// What was wrong, in a sentence.
    public var reason: String

    public var description: String { "\(error): \(reason)" }
}

extension Store {
    /// Checks a signed Advanced Commerce request for a purchase of `productID` (a one-time product of
    /// the catalog) and uses its nonce up: a signed request is good for one purchase. Throws
    /// ``AdvancedCommerceRequestFault`` naming Apple's error.
    func checkAdvancedCommerceRequest(_ jws: String, productID: String) async throws -> AdvancedCommerceRequest {
        func fault(_ error: String, _ reason: String) -> AdvancedCommerceRequestFault { .init(error: error, reason: reason) }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let header = try? JSON.parse(headerBytes) else {
            throw fault("InvalidSignatureError", "not a compact JWS (three base64url parts, a JSON header)")
        }
        guard header["alg"] == .string("ES256"), header["typ"] == .string("JWT"), case .string(let keyID)? = header["kid"] else {
            throw fault("InvalidSignatureError", "the header is not Apple's: alg ES256, kid, typ JWT")
        }
        guard let key = try offerKeys().first(where: { $0.keyID == keyID }) else {
            throw fault("InvalidSignatureError", "no In-App Purchase key \"\(keyID)\" is registered (storefront offer-keys)")
        }
        let claims: JSON
        do {
            claims = try SigningKey(pem: key.publicKeyPEM).verify(jws).payload
        } catch {
            throw fault("InvalidSignatureError", "the JWS does not verify with key \(keyID): \(error)")
        }
        func text(_ json: JSON?, _ name: String) -> String? {
            if case .string(let value)? = json?[name] { return value }
            return nil
        }
        guard text(claims, "aud") == AdvancedCommerceRequest.audience else {
            throw fault("InvalidSignatureError", "aud is not \"\(AdvancedCommerceRequest.audience)\"")
        }
        guard text(claims, "bid") == catalog.bundleID else {
            throw fault("InvalidSignatureError", "bid is not the app's bundle id \(catalog.bundleID)")
        }
        guard let issuer = text(claims, "iss"), !issuer.isEmpty, key.issuerID == nil || key.issuerID == issuer else {
            throw fault("InvalidSignatureError", "iss is not the key's issuer \(key.issuerID ?? "(any, but present)")")
        }
        guard case .number(let iat)? = claims["iat"], let seconds = Double(iat) else { throw fault("InvalidSignatureError", "no iat") }
        let now = try currentTime()
        let signedAt = Date(timeIntervalSince1970: seconds)
        if now.timeIntervalSince(signedAt) > PromotionalOfferSignature.lifetime {
            throw fault("InvalidSignatureError", "the request is stale: signed \(signedAt.formatted(.iso8601)), more than 24 hours before \(now.formatted(.iso8601))")
        }
        if signedAt.timeIntervalSince(now) > PromotionalOfferSignature.allowedSkew {
            throw fault("InvalidSignatureError", "iat \(signedAt.formatted(.iso8601)) is in the future (store time \(now.formatted(.iso8601)))")
        }
        guard let nonce = text(claims, "nonce").flatMap(UUID.init(uuidString:))?.uuidString.lowercased() else {
            throw fault("InvalidSignatureError", "no nonce (a UUID)")
        }
        let request = try Self.advancedCommerceRequest(claims["request"], storefront: try storefront().countryCode)
        guard let product = try await products().first(where: { $0.id == productID }), product.type == .consumable || product.type == .nonConsumable else {
            throw fault("InvalidProductError", "\(productID) is not a one-time product of the catalog: the engine buys a one-time charge as a purchase of it")
        }
        let fresh = try ledger.write { try ledger.useOfferNonce(nonce, account: account, at: now) }
        guard fresh else { throw fault("InvalidSignatureError", "the nonce \(nonce) was used already: a signed request is good for one purchase") }
        return request
    }

    /// The `request` claim's operation, read and checked field by field.
    private static func advancedCommerceRequest(_ claim: JSON?, storefront: String) throws -> AdvancedCommerceRequest {
        func fault(_ error: String, _ reason: String) -> AdvancedCommerceRequestFault { .init(error: error, reason: reason) }
        guard case .string(let encoded)? = claim, let bytes = Data(base64Encoded: encoded), let json = try? JSON.parse([UInt8](bytes)),
              case .object = json else {
            throw fault("MalformedPayloadError", "the request claim is not base64 of a JSON object")
        }
        func text(_ object: JSON?, _ name: String) -> String? {
            if case .string(let value)? = object?[name] { return value }
            return nil
        }
        let operation = text(json, "operation") ?? ""
        if AdvancedCommerceRequest.subscriptionOperations.contains(operation) {
            throw fault("InvalidOperationError", "\(operation) is not supported by Storefront: only \(AdvancedCommerceRequest.oneTimeCharge) is bought (docs/swift.md)")
        }
        guard operation == AdvancedCommerceRequest.oneTimeCharge else {
            throw fault("InvalidOperationError", "operation \"\(operation)\" is not an Advanced Commerce in-app operation")
        }
        guard text(json, "version") == "1" else { throw fault("MalformedPayloadError", "version is not \"1\"") }
        let info = json["requestInfo"]
        guard let reference = text(info, "requestReferenceId").flatMap(UUID.init(uuidString:)) else {
            throw fault("InvalidRequestReferenceIdError", "requestInfo.requestReferenceId is not a UUID")
        }
        var token: UUID?
        if let value = text(info, "appAccountToken") {
            guard let uuid = UUID(uuidString: value) else { throw fault("InvalidAppAccountTokenError", "appAccountToken is not a UUID") }
            token = uuid
        }
        guard let currency = text(json, "currency") else { throw fault("NullCurrencyError", "no currency") }
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw fault("InvalidCurrencyError", "currency \(currency) is not an ISO 4217 code")
        }
        guard let taxCode = text(json, "taxCode"), !taxCode.isEmpty else { throw fault("InvalidTaxProductCodeError", "no taxCode") }
        let requested = text(json, "storefront")
        if let requested, requested != storefront {
            throw fault("MismatchedStorefrontError", "storefront \(requested) is not the store's \(storefront)")
        }
        guard case .object = json["item"] else { throw fault("NullItemError", "no item") }
        let item = json["item"]
        guard let sku = text(item, "SKU"), !sku.isEmpty else { throw fault("InvalidSKUError", "item.SKU is missing") }
        guard let name = text(item, "displayName") else { throw fault("NullDisplayNameError", "item.displayName is missing") }
        guard let description = text(item, "description") else { throw fault("NullDescriptionError", "item.description is missing") }
        guard case .number(let number)? = item?["price"] else { throw fault("NullPriceError", "item.price is missing") }
        guard let price = Int64(number) else { throw fault("InvalidAmountError", "item.price \(number) is not whole milliunits") }
        guard price >= 0 else { throw fault("NegativePriceError", "item.price is negative") }
        return AdvancedCommerceRequest(operation: operation, requestReferenceID: reference, appAccountToken: token, currency: currency,
                                       taxCode: taxCode, storefront: requested, sku: sku, displayName: name, description: description,
                                       price: price)
    }
}
