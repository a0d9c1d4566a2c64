import Foundation
import StoreEngine
import StorefrontKit

/// A failure a test session can make a StoreKit API throw (StoreKit Test's `SKTestFailure`).
public protocol SKTestFailure: Equatable, Sendable {}

/// A StoreKit API a test session can make fail, with the failures it may throw
/// (StoreKit Test's `FailableStoreKitAPI`): `.loadProducts`, `.purchase`, `.verification`, …
public protocol FailableStoreKitAPI<Failure>: Sendable {
    /// The failures the API may be made to throw.
    associatedtype Failure: SKTestFailure
}

/// The failures each StoreKit API may be made to throw (StoreKit Test's `SKTestFailures`).
public enum SKTestFailures {
    /// `AppStore.sync()`.
    public enum AppStoreSync: SKTestFailure {
        case generic(StoreKitError)
    }

    /// `AppTransaction.shared` and `refresh()`.
    public enum AppTransaction: SKTestFailure {
        case generic(StoreKitError)
    }

    /// `Product.products(for:)`.
    public enum LoadProducts: SKTestFailure {
        case generic(StoreKitError)
    }

    /// `AppStore.showManageSubscriptions(in:)`.
    public enum ManageSubscriptions: SKTestFailure {
        case generic(StoreKitError)
    }

    /// `AppStore.presentOfferCodeRedeemSheet(in:)`.
    public enum OfferCodeRedeem: SKTestFailure {
        case generic(StoreKitError)
    }

    /// `Product.purchase(options:)`.
    public enum Purchase: SKTestFailure {
        case generic(StoreKitError)
        case purchase(StorefrontKit.Product.PurchaseError)
    }

    /// `Transaction.beginRefundRequest(in:)`.
    public enum RefundRequest: SKTestFailure {
        case generic(StoreKitError)
        case refundRequest(StorefrontKit.Transaction.RefundRequestError)
    }

    /// `Product.SubscriptionInfo.status` and `Status.updates`.
    public enum SubscriptionStatus: SKTestFailure {
        case generic(StoreKitError)
    }

    /// The verification of the signed values that reach the app.
    public enum Verification: SKTestFailure {
        case verification(VerificationResult<StorefrontKit.Transaction>.VerificationError)
    }
}

// MARK: - The APIs

/// `AppStore.sync()` as a failable API.
public struct StoreKitAppStoreSyncAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.AppStoreSync
}
/// `AppTransaction` as a failable API.
public struct StoreKitAppTransactionAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.AppTransaction
}
/// `Product.products(for:)` as a failable API.
public struct StoreKitLoadProductsAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.LoadProducts
}
/// `AppStore.showManageSubscriptions(in:)` as a failable API.
public struct StoreKitManageSubscriptionsAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.ManageSubscriptions
}
/// `AppStore.presentOfferCodeRedeemSheet(in:)` as a failable API.
public struct StoreKitOfferCodeRedeemAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.OfferCodeRedeem
}
/// `Product.purchase(options:)` as a failable API.
public struct StoreKitPurchaseAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.Purchase
}
/// `Transaction.beginRefundRequest(in:)` as a failable API.
public struct StoreKitRefundRequestAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.RefundRequest
}
/// Subscription statuses as a failable API.
public struct StoreKitSubscriptionStatusAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.SubscriptionStatus
}
/// Verification as a failable API.
public struct StoreKitVerificationAPI: FailableStoreKitAPI {
    public typealias Failure = SKTestFailures.Verification
}

extension FailableStoreKitAPI where Self == StoreKitAppStoreSyncAPI {
    /// `AppStore.sync()`.
    public static var appStoreSync: StoreKitAppStoreSyncAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitAppTransactionAPI {
    /// `AppTransaction.shared` and `refresh()`.
    public static var appTransaction: StoreKitAppTransactionAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitLoadProductsAPI {
    /// `Product.products(for:)`.
    public static var loadProducts: StoreKitLoadProductsAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitManageSubscriptionsAPI {
    /// `AppStore.showManageSubscriptions(in:)`.
    public static var manageSubscriptions: StoreKitManageSubscriptionsAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitOfferCodeRedeemAPI {
    /// `AppStore.presentOfferCodeRedeemSheet(in:)`.
    public static var offerCodeRedeem: StoreKitOfferCodeRedeemAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitPurchaseAPI {
    /// `Product.purchase(options:)`.
    public static var purchase: StoreKitPurchaseAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitRefundRequestAPI {
    /// `Transaction.beginRefundRequest(in:)`.
    public static var refundRequest: StoreKitRefundRequestAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitSubscriptionStatusAPI {
    /// Subscription statuses.
    public static var subscriptionStatus: StoreKitSubscriptionStatusAPI { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitVerificationAPI {
    /// The verification of signed values.
    public static var verification: StoreKitVerificationAPI { .init() }
}

// MARK: - What the store simulates

/// An API whose failures the store file can simulate: the setting that holds the error.
protocol SimulatableAPI {
    static var settingKey: SettingKey<SimulatedError?> { get }
}

/// A failure the store can simulate, by the engine's name of its case.
protocol SimulatableFailure {
    /// The engine's case; nil when the store cannot raise it.
    var simulated: SimulatedError? { get }
    /// The failure the store's setting names.
    init?(simulated: SimulatedError)
}

extension StoreKitAppStoreSyncAPI: SimulatableAPI { static var settingKey: SettingKey<SimulatedError?> { .restoreError } }
extension StoreKitLoadProductsAPI: SimulatableAPI { static var settingKey: SettingKey<SimulatedError?> { .loadProductsError } }
extension StoreKitPurchaseAPI: SimulatableAPI { static var settingKey: SettingKey<SimulatedError?> { .purchaseError } }
extension StoreKitVerificationAPI: SimulatableAPI { static var settingKey: SettingKey<SimulatedError?> { .verificationError } }

extension SKTestFailures.AppStoreSync: SimulatableFailure {
    var simulated: SimulatedError? { switch self { case .generic(let error): SimulatedError(storeKit: error) } }
    init?(simulated: SimulatedError) {
        guard let error = StoreKitError(engineCase: simulated) else { return nil }
        self = .generic(error)
    }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}

extension SKTestFailures.LoadProducts: SimulatableFailure {
    var simulated: SimulatedError? { switch self { case .generic(let error): SimulatedError(storeKit: error) } }
    init?(simulated: SimulatedError) {
        guard let error = StoreKitError(engineCase: simulated) else { return nil }
        self = .generic(error)
    }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}

extension SKTestFailures.Purchase: SimulatableFailure {
    var simulated: SimulatedError? {
        switch self {
        case .generic(let error): SimulatedError(storeKit: error)
        case .purchase(let error): SimulatedError(storeKit: error)
        }
    }
    init?(simulated: SimulatedError) {
        if let error = StoreKitError(engineCase: simulated) {
            self = .generic(error)
        } else if let error = StorefrontKit.Product.PurchaseError(engineCase: simulated) {
            self = .purchase(error)
        } else {
            return nil
        }
    }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}

extension SKTestFailures.Verification: SimulatableFailure {
    var simulated: SimulatedError? { switch self { case .verification(let error): SimulatedError(storeKit: error) } }
    init?(simulated: SimulatedError) {
        guard let error = VerificationResult<StorefrontKit.Transaction>.VerificationError(engineCase: simulated) else { return nil }
        self = .verification(error)
    }
}

// MARK: - What the process simulates

/// An API whose failures no store setting holds: the test session keeps its error in this process
/// (as Xcode's session does), and the API throws it.
protocol ProcessSimulatedAPI {
    static var simulatedAPI: StoreContext.SimulatedAPI { get }
}

/// A failure the process simulates: the error the API throws.
protocol ProcessSimulatedFailure: Sendable {
    var thrown: any Error & Sendable { get }
}

extension StoreKitAppTransactionAPI: ProcessSimulatedAPI { static var simulatedAPI: StoreContext.SimulatedAPI { .appTransaction } }
extension StoreKitManageSubscriptionsAPI: ProcessSimulatedAPI {
    static var simulatedAPI: StoreContext.SimulatedAPI { .manageSubscriptions }
}
extension StoreKitOfferCodeRedeemAPI: ProcessSimulatedAPI { static var simulatedAPI: StoreContext.SimulatedAPI { .offerCodeRedeem } }
extension StoreKitRefundRequestAPI: ProcessSimulatedAPI { static var simulatedAPI: StoreContext.SimulatedAPI { .refundRequest } }
extension StoreKitSubscriptionStatusAPI: ProcessSimulatedAPI {
    static var simulatedAPI: StoreContext.SimulatedAPI { .subscriptionStatus }
}

// Equal by case and payload (a `networkError`'s `URLError` by its description).
extension SKTestFailures.AppTransaction: ProcessSimulatedFailure {
    var thrown: any Error & Sendable { switch self { case .generic(let error): error } }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}
extension SKTestFailures.ManageSubscriptions: ProcessSimulatedFailure {
    var thrown: any Error & Sendable { switch self { case .generic(let error): error } }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}
extension SKTestFailures.OfferCodeRedeem: ProcessSimulatedFailure {
    var thrown: any Error & Sendable { switch self { case .generic(let error): error } }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}
extension SKTestFailures.RefundRequest: ProcessSimulatedFailure {
    var thrown: any Error & Sendable {
        switch self {
        case .generic(let error): error
        case .refundRequest(let error): error
        }
    }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}
extension SKTestFailures.SubscriptionStatus: ProcessSimulatedFailure {
    var thrown: any Error & Sendable { switch self { case .generic(let error): error } }
    public static func == (a: Self, b: Self) -> Bool { String(describing: a) == String(describing: b) }
}

// MARK: - StoreKit's errors and the engine's names

extension SimulatedError {
    /// The engine's case for a StoreKit error (a `networkError`'s `URLError` and a `systemError`'s cause are not kept).
    init(storeKit error: StoreKitError) {
        self = switch error {
        case .networkError: .networkError
        case .systemError: .systemError
        case .notAvailableInStorefront: .notAvailableInStorefront
        case .notEntitled: .notEntitled
        case .userCancelled: .userCancelled
        case .unknown: .unknown
        case .unsupported: .unsupported
        }
    }

    init(storeKit error: StorefrontKit.Product.PurchaseError) {
        self = switch error {
        case .invalidQuantity: .invalidQuantity
        case .productUnavailable: .productUnavailable
        case .purchaseNotAllowed: .purchaseNotAllowed
        case .ineligibleForOffer: .ineligibleForOffer
        case .invalidOfferIdentifier: .invalidOfferIdentifier
        case .invalidOfferPrice: .invalidOfferPrice
        case .invalidOfferSignature: .invalidOfferSignature
        case .missingOfferParameters: .missingOfferParameters
        }
    }

    init<Signed>(storeKit error: VerificationResult<Signed>.VerificationError) {
        self = switch error {
        case .revokedCertificate: .revokedCertificate
        case .invalidCertificateChain: .invalidCertificateChain
        case .invalidDeviceVerification: .invalidDeviceVerification
        case .invalidEncoding: .invalidEncoding
        case .invalidSignature: .invalidSignature
        case .missingRequiredProperties: .missingRequiredProperties
        }
    }
}

extension StoreKitError {
    /// The StoreKit error the engine's case names; nil for a case of another type.
    init?(engineCase simulated: SimulatedError) {
        switch simulated {
        case .networkError: self = .networkError(URLError(.notConnectedToInternet))
        case .systemError: self = .systemError(SimulatedFailureCause())
        case .notAvailableInStorefront: self = .notAvailableInStorefront
        case .notEntitled: self = .notEntitled
        case .userCancelled: self = .userCancelled
        case .unknown: self = .unknown
        case .unsupported: self = .unsupported
        default: return nil
        }
    }
}

extension StorefrontKit.Product.PurchaseError {
    /// The purchase error the engine's case names; nil for a case of another type.
    init?(engineCase simulated: SimulatedError) {
        switch simulated {
        case .invalidQuantity: self = .invalidQuantity
        case .productUnavailable: self = .productUnavailable
        case .purchaseNotAllowed: self = .purchaseNotAllowed
        case .ineligibleForOffer: self = .ineligibleForOffer
        case .invalidOfferIdentifier: self = .invalidOfferIdentifier
        case .invalidOfferPrice: self = .invalidOfferPrice
        case .invalidOfferSignature: self = .invalidOfferSignature
        case .missingOfferParameters: self = .missingOfferParameters
        default: return nil
        }
    }
}

extension VerificationResult.VerificationError {
    /// The verification error the engine's case names; nil for a case of another type.
    init?(engineCase simulated: SimulatedError) {
        switch simulated {
        case .revokedCertificate: self = .revokedCertificate
        case .invalidCertificateChain: self = .invalidCertificateChain
        case .invalidDeviceVerification: self = .invalidDeviceVerification
        case .invalidEncoding: self = .invalidEncoding
        case .invalidSignature: self = .invalidSignature
        case .missingRequiredProperties: self = .missingRequiredProperties
        default: return nil
        }
    }
}

/// The cause under a simulated `systemError`.
struct SimulatedFailureCause: Error, CustomStringConvertible {
    var description: String { "simulated systemError" }
}
