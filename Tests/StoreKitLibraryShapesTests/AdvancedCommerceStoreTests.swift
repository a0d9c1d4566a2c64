import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

// A store layer's Advanced Commerce purchase, as a library writes it: its server signs the request
// (behind a protocol the library's tests fake), the layer loads the generic product and buys, and
// turns StoreKit's errors into what its UI says.

/// What signs an Advanced Commerce request: the app's server, in the library.
protocol AdvancedCommerceSigner: Sendable {
    func signedRequest(sku: String, displayName: String, priceInMilliunits: Int) async throws -> String
}

/// The library's store layer.
struct AdvancedCommerceStore {
    let genericProductID: String
    let signer: any AdvancedCommerceSigner

    /// Buys one item; the transaction, finished, or nil when the customer did not complete it.
    func buy(sku: String, displayName: String, priceInMilliunits: Int) async throws -> Transaction? {
        let product = try await AdvancedCommerceProduct(id: genericProductID)
        let jws = try await signer.signedRequest(sku: sku, displayName: displayName, priceInMilliunits: priceInMilliunits)
        let result = try await product.purchase(compactJWS: jws, options: [.onStorefrontChange { _ in false }])
        switch result {
        case .success(.verified(let transaction)):
            await transaction.finish()
            return transaction
        case .success(.unverified):
            return nil
        case .pending, .userCancelled:
            return nil
        }
    }

    /// The layer's words for a failure.
    static func message(for error: any Error) -> String {
        switch error {
        case let refused as InvalidRequestError: "The request was refused (\(refused.code))."
        case StoreKitError.unsupported: "This product is not available."
        default: "Something went wrong."
        }
    }
}

/// The library's test double for its server: signs with a key the store knows (as its server would with
/// its In-App Purchase key), or with a key it does not.
struct FakeServer: AdvancedCommerceSigner {
    let keyID: String
    let pem: String
    let bundleID: String

    func signedRequest(sku: String, displayName: String, priceInMilliunits: Int) async throws -> String {
        let request: [String: Any] = [
            "operation": "CREATE_ONE_TIME_CHARGE", "version": "1", "requestInfo": ["requestReferenceId": UUID().uuidString],
            "currency": "USD", "taxCode": "C003-00-2",
            "item": ["SKU": sku, "displayName": displayName, "description": displayName, "price": priceInMilliunits],
        ]
        return try advancedCommerceJWS(request, keyID: keyID, pem: pem, bundleID: bundleID)
    }
}

@Suite("AdvancedCommerceProduct in a store layer") struct AdvancedCommerceStoreTests {
    @Test func aLayerBuysThroughItsServersSignatureAndSaysWhyARequestIsRefused() async throws {
        try await inSession { _ in
            let key = try await serverKey(keyID: "SERVER")
            let server = FakeServer(keyID: key.keyID, pem: key.pem, bundleID: key.bundleID)
            let layer = AdvancedCommerceStore(genericProductID: ID.goPro, signer: server)
            let bought = try await layer.buy(sku: "BOOK_1", displayName: "Book one", priceInMilliunits: 4990)
            #expect(bought?.productID == ID.goPro)

            let impostor = FakeServer(keyID: "SERVER", pem: try strangerKeyPEM(), bundleID: key.bundleID)
            do {
                _ = try await AdvancedCommerceStore(genericProductID: ID.goPro, signer: impostor)
                    .buy(sku: "BOOK_2", displayName: "Book two", priceInMilliunits: 990)
                Issue.record("a request the store's key did not sign was bought")
            } catch {
                #expect(AdvancedCommerceStore.message(for: error) == "The request was refused (\((error as? InvalidRequestError)?.code ?? 0)).")
                #expect(error is InvalidRequestError)
            }
            do {
                _ = try await AdvancedCommerceStore(genericProductID: ID.monthly, signer: server)
                    .buy(sku: "SUB", displayName: "Sub", priceInMilliunits: 990)
                Issue.record("a subscription loaded as a one-time generic product")
            } catch {
                #expect(AdvancedCommerceStore.message(for: error) == "This product is not available.")
            }
        }
    }
}
