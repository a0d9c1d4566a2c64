import Foundation
import StoreEngine
import Synchronization

/// The app's purchase by the account (StoreKit's `AppTransaction`): signed by the store
/// like a transaction, and verified against its certificate chain.
public struct AppTransaction: Sendable, Hashable, SignedByStore {
    package let engine: StoreEngine.AppTransaction

    /// The app's bundle id (the catalog's).
    public var bundleID: String { engine.bundleID }
    /// The app's version ("1.0", as in the sandbox).
    public var appVersion: String { engine.appVersion }
    /// The version the account first got ("1.0", as in the sandbox).
    public var originalAppVersion: String { engine.originalAppVersion }
    /// When the account first got the app: its first use of the store.
    public var originalPurchaseDate: Date { engine.originalPurchaseDate }
    /// One per account and app, the same in every transaction's `appTransactionID`.
    public var appTransactionID: String { engine.appTransactionID }
    /// The environment it was signed for (the `environment` setting).
    public var environment: AppStore.Environment { AppStore.Environment(rawValue: engine.environment.rawValue.capitalized) }
    /// When the App Store signed it.
    public var signedDate: Date { engine.signedDate }
    /// The signed payload as JSON, with the App Store's field names.
    public var jsonRepresentation: Data { jwsPayload(engine.jwsRepresentation) }
    var jws: String { engine.jwsRepresentation ?? "" }

    /// The account's app transaction, verified against the store's chain.
    public static var shared: VerificationResult<AppTransaction> {
        get async throws {
            let context = try resolvedContext()
            let engine = try await storeKitCall { try await context.store.app.appTransaction() }
            let value = AppTransaction(engine: engine)
            do {
                _ = try await context.store.app.verify(jws: value.jws)
                return .verified(value)
            } catch {
                return .unverified(value, .invalidSignature)
            }
        }
    }

    /// Signs it again (StoreKit asks the App Store; here the store signs it now).
    public static func refresh() async throws -> VerificationResult<AppTransaction> { try await shared }
}

extension AppStore {
    /// The code the next ``presentOfferCodeRedeemSheet()`` enters, as a customer would type it
    /// on the App Store's sheet (there is no sheet here); nil: `$STOREFRONT_OFFER_CODE`.
    public static var offerCodeToRedeem: String? {
        get { codeToRedeem.withLock { $0 } }
        set { codeToRedeem.withLock { $0 = newValue } }
    }
    private static let codeToRedeem = Mutex<String?>(nil)

    /// StoreKit's redeem sheet without its UI: redeems the code set in ``offerCodeToRedeem`` or
    /// `$STOREFRONT_OFFER_CODE`. The transaction arrives on `Transaction.updates`, as on a device.
    /// An unknown or expired code throws `Product.PurchaseError.invalidOfferIdentifier`; a used
    /// code, a limit reached or an ineligible account `ineligibleForOffer`; no code at all
    /// `StoreKitError.userCancelled` (the customer closed the sheet).
    public static func presentOfferCodeRedeemSheet() async throws {
        let code = offerCodeToRedeem ?? ProcessInfo.processInfo.environment["STOREFRONT_OFFER_CODE"]
        guard let code, !code.isEmpty else { throw StoreKitError.userCancelled }
        let context = try resolvedContext()
        _ = try await storeKitCall { try await context.store.appStore.redeemOfferCode(code) }
        context.changed()
    }
}
