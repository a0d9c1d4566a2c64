import Foundation
import StoreEngine
import Synchronization

/// The app's purchase by the account (StoreKit's `AppTransaction`): signed by the store
/// like a transaction, and verified against its certificate chain.
public struct AppTransaction: Sendable, Hashable, SignedByStore {
    package let engine: StoreEngine.AppTransaction
    /// The device it reached (its `deviceVerification` is for this `deviceVerificationID`).
    let device: UUID?

    package init(engine: StoreEngine.AppTransaction, device: UUID? = nil) { (self.engine, self.device) = (engine, device) }

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
    public var environment: AppStore.Environment { AppStore.Environment(rawValue: engine.environment.appStoreName) }
    /// When the App Store signed it.
    public var signedDate: Date { engine.signedDate }
    /// The signed payload as JSON, with the App Store's field names.
    public var jsonRepresentation: Data { jwsPayload(engine.jwsRepresentation) }
    var jws: String { engine.jwsRepresentation ?? "" }
    /// The App Store's id of the app (`appAppleId`): nil in the sandbox and in Xcode, as on a device.
    public var appID: UInt64? { payloadNumber("appAppleId") }
    /// The App Store's id of the app's version (`versionExternalIdentifier`): nil in the sandbox and in Xcode.
    public var appVersionID: UInt64? { payloadNumber("versionExternalIdentifier") }
    /// When the customer pre-ordered the app (`preorderDate`); nil: not pre-ordered (never, here).
    public var preorderDate: Date? {
        payloadNumber("preorderDate").map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
    /// The platform of the account's first purchase of the app (`originalPlatform`).
    public var originalPlatform: AppStore.Platform { AppStore.Platform(rawValue: engine.originalPlatform) }
    /// The UUID mixed into ``deviceVerification``.
    public var deviceVerificationNonce: UUID { DeviceVerification.nonce(for: jws.isEmpty ? "app \(engine.appTransactionID)" : jws) }
    /// SHA-384 of ``deviceVerificationNonce`` and `AppStore.deviceVerificationID`, lowercased and
    /// joined (see `Transaction.deviceVerification`); empty for a value not read from a store.
    public var deviceVerification: Data {
        device.map { DeviceVerification.hash(nonce: deviceVerificationNonce, device: $0) } ?? Data()
    }

    private func payloadNumber(_ name: String) -> UInt64? {
        let payload = (try? JSONSerialization.jsonObject(with: jsonRepresentation)) as? [String: Any]
        guard let number = payload?[name] as? NSNumber, number.int64Value >= 0 else { return nil }
        return number.uint64Value
    }

    /// The account's app transaction, verified against the store's chain.
    public static var shared: VerificationResult<AppTransaction> {
        get async throws {
            let context = try resolvedContext()
            try context.throwIfSimulated(.appTransaction)
            let engine = try await storeKitCall { try await context.store.app.appTransaction() }
            let value = AppTransaction(engine: engine, device: DeviceVerification.id(of: context.store))
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
    /// An Apple platform, as App Store Connect names it (StoreKit's `AppStore.Platform`).
    public struct Platform: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The platform's name (`iOS`).
        public let rawValue: String
        /// Creates the platform with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// iOS.
        public static let iOS = Platform(rawValue: "iOS")
        /// macOS.
        public static let macOS = Platform(rawValue: "macOS")
        /// tvOS.
        public static let tvOS = Platform(rawValue: "tvOS")
        /// visionOS.
        public static let visionOS = Platform(rawValue: "visionOS")
        /// The name.
        public var description: String { rawValue }
    }

    /// The code the next ``presentOfferCodeRedeemSheet()`` enters, as a customer would type it
    /// on the App Store's sheet (there is no sheet here); nil: `$STOREFRONT_OFFER_CODE`.
    /// Set inside `SKTestSession.run`, it is that session's, so tests running at once each redeem their own.
    public static var offerCodeToRedeem: String? {
        get {
            if let session = StoreContext.current { return session.offerCodeToRedeem.withLock { $0 } }
            return codeToRedeem.withLock { $0 }
        }
        set {
            if let session = StoreContext.current { session.offerCodeToRedeem.withLock { $0 = newValue } } else { codeToRedeem.withLock { $0 = newValue } }
        }
    }
    private static let codeToRedeem = Mutex<String?>(nil)

    /// StoreKit's redeem sheet without its UI: redeems the code set in ``offerCodeToRedeem`` or
    /// `$STOREFRONT_OFFER_CODE`. The transaction arrives on `Transaction.updates`, as on a device.
    /// An unknown or expired code throws `Product.PurchaseError.invalidOfferIdentifier`; a used
    /// code, a limit reached or an ineligible account `ineligibleForOffer`; no code at all
    /// `StoreKitError.userCancelled` (the customer closed the sheet).
    public static func presentOfferCodeRedeemSheet() async throws {
        _ = try await redeemSheet()
    }

    /// The sheet in a window scene (StoreKit's `presentOfferCodeRedeemSheet(in: UIWindowScene)`). Linux
    /// has no scene: `scene` takes any value, or nil; it redeems as ``presentOfferCodeRedeemSheet()``.
    public static func presentOfferCodeRedeemSheet(in scene: (any Sendable)?) async throws {
        _ = try await redeemSheet()
    }

    /// The sheet over a view controller or window, returning the transaction the code made (StoreKit's
    /// `presentOfferCodeRedeemSheet(from:options:)` of iOS 27, and the shape of macOS's
    /// `presentOfferCodeRedeemSheet(from: NSViewController)`, whose result a call may ignore). Linux has
    /// no view controller: `viewController` takes any value, or nil. The transaction is returned, not
    /// repeated on `Transaction.updates` (as a purchase's); errors as ``presentOfferCodeRedeemSheet()``.
    @discardableResult
    public static func presentOfferCodeRedeemSheet(from viewController: (any Sendable)?,
                                                   options: Set<RedeemOption> = []) async throws -> VerificationResult<Transaction> {
        let (outcome, context) = try await redeemSheet()
        // A code redeems at once (no Ask to Buy for codes): anything else is a closed sheet.
        guard case .success(let transaction) = outcome.result else { throw StoreKitError.userCancelled }
        context.handOut(transaction.id)
        return Transaction.verification(of: transaction, context: context)
    }

    /// Redeems the code the customer would type; what the store made of it.
    private static func redeemSheet() async throws -> (PurchaseOutcome, StoreContext) {
        try StoreContext.throwIfSimulated(.offerCodeRedeem)
        let code = offerCodeToRedeem ?? ProcessInfo.processInfo.environment["STOREFRONT_OFFER_CODE"]
        guard let code, !code.isEmpty else { throw StoreKitError.userCancelled }
        let context = try resolvedContext()
        let outcome = try await storeKitCall { try await context.store.appStore.redeemOfferCode(code) }
        context.changed()
        return (outcome, context)
    }
}

/// An option of the offer code redemption sheet, as StoreKit's `RedeemOption` (iOS 27), for
/// `AppStore.presentOfferCodeRedeemSheet(from:options:)`. Apple documents no option yet; nor is there one here.
public struct RedeemOption: Hashable, Sendable {}
