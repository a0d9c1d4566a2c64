import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// `AdvancedCommerceProduct` (iOS 18.4): a one-time product bought with a request the app's server
/// signed, checked as the App Store checks an Advanced Commerce API in-app request.
@Suite struct AdvancedCommerceProductTests {
    /// A one-time charge request as Apple's documentation writes it, base64 JSON.
    static func oneTimeCharge(operation: String = "CREATE_ONE_TIME_CHARGE", appAccountToken: UUID? = nil,
                              price: Int = 4990, storefront: String? = nil) -> String {
        var info = ["requestReferenceId": UUID().uuidString.lowercased()]
        if let appAccountToken { info["appAccountToken"] = appAccountToken.uuidString.lowercased() }
        var request: [String: Any] = [
            "operation": operation, "version": "1", "requestInfo": info, "currency": "USD", "taxCode": "C003-00-2",
            "item": ["SKU": "BOOK_SHERLOCK_HOLMES", "displayName": "Sherlock Holmes", "description": "The 5th Edition", "price": price],
        ]
        if let storefront { request["storefront"] = storefront }
        return (try? JSONSerialization.data(withJSONObject: request))?.base64EncodedString() ?? ""
    }

    @Test func aSignedOneTimeChargeBuysTheGenericProductThroughTheEngine() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let key = try await advancedCommerceKey()
            let product = try await AdvancedCommerceProduct(id: ID.goPro)
            #expect(product.id == ID.goPro && product.type == .nonConsumable)
            #expect(await product.latestTransaction == nil)
            let token = UUID()
            let result = try await product.purchase(compactJWS: try advancedCommerceJWS(Self.oneTimeCharge(appAccountToken: token), key: key),
                                                    confirmIn: nil)
            guard case .success(let verification) = result, case .verified(let transaction) = verification else {
                Issue.record("expected a verified purchase: \(result)"); return
            }
            #expect(transaction.productID == ID.goPro && transaction.appAccountToken == token)
            #expect(try await product.latestTransaction?.payloadValue.id == transaction.id)
            var entitled: [UInt64] = []
            for await entitlement in product.currentEntitlements { entitled.append(try entitlement.payloadValue.id) }
            #expect(entitled == [transaction.id])
            var all: [UInt64] = []
            for await each in product.allTransactions { all.append(try each.payloadValue.id) }
            #expect(all == [transaction.id])
            await transaction.finish()
        }
    }

    @Test func aBadRequestIsRefusedWithInvalidRequestErrorAndBuysNothing() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let key = try await advancedCommerceKey()
            let product = try await AdvancedCommerceProduct(id: ID.coins)
            func refusal(_ jws: String) async -> InvalidRequestError? {
                do {
                    _ = try await product.purchase(compactJWS: jws)
                    return nil
                } catch {
                    return error as? InvalidRequestError
                }
            }
            let notAJWS = await refusal("not.a.jws")
            #expect(notAJWS?.message.hasPrefix("InvalidSignatureError") == true, "\(String(describing: notAJWS))")
            let otherKey = try strangerPEM()
            let forged = try advancedCommerceJWS(Self.oneTimeCharge(), key: ("KIT", otherKey))
            #expect(await refusal(forged)?.message.contains("does not verify") == true)
            let unknownKey = try advancedCommerceJWS(Self.oneTimeCharge(), key: ("NOSUCHKEY", otherKey))
            #expect(await refusal(unknownKey)?.message.contains("NOSUCHKEY") == true)
            let promotional = try advancedCommerceJWS(Self.oneTimeCharge(), audience: "promotional-offer", key: key)
            #expect(await refusal(promotional)?.message.contains("aud") == true)
            let subscription = try advancedCommerceJWS(Self.oneTimeCharge(operation: "CREATE_SUBSCRIPTION"), key: key)
            let unsupported = await refusal(subscription)
            #expect(unsupported?.message.hasPrefix("InvalidOperationError") == true && unsupported?.code == 4_000_003)
            let negative = try advancedCommerceJWS(Self.oneTimeCharge(price: -1), key: key)
            #expect(await refusal(negative)?.message.hasPrefix("NegativePriceError") == true)
            let elsewhere = try advancedCommerceJWS(Self.oneTimeCharge(storefront: "FRA"), key: key)
            #expect(await refusal(elsewhere)?.message.hasPrefix("MismatchedStorefrontError") == true)
            let here = try advancedCommerceJWS(Self.oneTimeCharge(storefront: "USA"), key: key)
            guard case .success = try await product.purchase(compactJWS: here) else { Issue.record("the store's storefront"); return }
            let garbage = try advancedCommerceJWS("not base64 JSON", key: key)
            #expect(await refusal(garbage)?.message.hasPrefix("MalformedPayloadError") == true)
            // A nonce is good for one purchase.
            let nonce = UUID()
            let once = try advancedCommerceJWS(Self.oneTimeCharge(), nonce: nonce, key: key)
            guard case .success = try await product.purchase(compactJWS: once) else { Issue.record("expected success"); return }
            #expect(await refusal(try advancedCommerceJWS(Self.oneTimeCharge(), nonce: nonce, key: key))?.message.contains("used already") == true)
            var all = 0
            for await _ in product.allTransactions { all += 1 }
            #expect(all == 2, "only the good requests bought")
        }
    }

    @Test func onlyOneTimeProductsOfTheCatalogLoad() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        await session.run {
            for id in [ID.monthly, "no.such.product"] {
                do {
                    _ = try await AdvancedCommerceProduct(id: id)
                    Issue.record("\(id) loaded as an Advanced Commerce product")
                } catch {
                    guard case StoreKitError.unsupported = error else { Issue.record("\(id): \(error)"); continue }
                }
            }
            let option = AdvancedCommerceProduct.PurchaseOption.onStorefrontChange { _ in true }
            #expect(option == option && !option.debugDescription.isEmpty)
        }
    }
}
