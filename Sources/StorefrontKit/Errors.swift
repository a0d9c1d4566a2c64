import Foundation
import StoreEngine

/// An error of the StoreKit framework, with StoreKit's case names (`StoreKitError`).
public enum StoreKitError: Error, LocalizedError, Sendable, CustomStringConvertible {
    case unknown
    case userCancelled
    /// The App Store could not be reached (the `offline` setting, a simulated `networkError`).
    case networkError(URLError)
    /// Something below StoreKit failed: here, the catalog or store file could not be used.
    case systemError(any Error)
    case notAvailableInStorefront
    case notEntitled
    case unsupported

    /// The case name and what caused it.
    public var description: String {
        switch self {
        case .unknown: "StoreKitError.unknown"
        case .userCancelled: "StoreKitError.userCancelled"
        case .networkError(let error): "StoreKitError.networkError(\(error.code.rawValue))"
        case .systemError(let error): "StoreKitError.systemError(\(error))"
        case .notAvailableInStorefront: "StoreKitError.notAvailableInStorefront"
        case .notEntitled: "StoreKitError.notEntitled"
        case .unsupported: "StoreKitError.unsupported"
        }
    }

    /// What went wrong, in a sentence to show the customer.
    public var errorDescription: String? {
        switch self {
        case .unknown: "An unknown error occurred."
        case .userCancelled: "The request was cancelled."
        case .networkError: "The App Store could not be reached."
        case .systemError: "A system error occurred."
        case .notAvailableInStorefront: "This isn't available in your country or region."
        case .notEntitled: "The app isn't entitled to do this."
        case .unsupported: "This isn't supported."
        }
    }

    /// Why it went wrong: the underlying error for a network or system error.
    public var failureReason: String? {
        switch self {
        case .networkError(let error): "Network error \(error.code.rawValue)."
        case .systemError(let error): "\(error)"
        default: nil
        }
    }

    /// What the customer can do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .networkError: "Check your connection and try again."
        case .notAvailableInStorefront: "Change your App Store country or region."
        default: nil
        }
    }
}

extension Product {
    /// Why a purchase could not be made, as StoreKit's `Product.PurchaseError`.
    public enum PurchaseError: Error, LocalizedError, Sendable, Hashable {
        case invalidQuantity
        case productUnavailable
        case purchaseNotAllowed
        case ineligibleForOffer
        case invalidOfferIdentifier
        case invalidOfferPrice
        case invalidOfferSignature
        case missingOfferParameters

        /// What went wrong, in a sentence to show the customer.
        public var errorDescription: String? {
            switch self {
            case .invalidQuantity: "The quantity isn't valid."
            case .productUnavailable: "This item isn't available."
            case .purchaseNotAllowed: "Purchases aren't allowed on this account."
            case .ineligibleForOffer: "You aren't eligible for this offer."
            case .invalidOfferIdentifier: "The offer isn't valid."
            case .invalidOfferPrice: "The offer's price isn't valid."
            case .invalidOfferSignature: "The offer's signature isn't valid."
            case .missingOfferParameters: "The offer is missing information."
            }
        }

        /// Why it went wrong.
        public var failureReason: String? {
            switch self {
            case .invalidQuantity: "A consumable is bought 1 to 10 at a time; other products one at a time."
            case .productUnavailable: "The App Store does not sell this product in this storefront."
            case .purchaseNotAllowed: "The account may not make payments."
            case .ineligibleForOffer: "The offer's rules exclude this customer."
            case .invalidOfferIdentifier: "No offer of this product has this identifier."
            case .invalidOfferPrice: "The offer's price is higher than the product's."
            case .invalidOfferSignature: "The signature does not match the offer or its key."
            case .missingOfferParameters: "The offer's key, nonce, timestamp or signature is missing."
            }
        }

        /// What the customer can do about it.
        public var recoverySuggestion: String? {
            self == .purchaseNotAllowed ? "Ask the account's organiser, or check Screen Time restrictions." : nil
        }
    }
}

/// Turns what the engine threw into the error StoreKit code expects.
func storeKitError(_ error: any Error) -> any Error {
    switch error {
    case let error as StoreError:
        switch error {
        case .purchaseNotAllowed: return Product.PurchaseError.purchaseNotAllowed
        case .productUnavailable: return Product.PurchaseError.productUnavailable
        case .invalidQuantity: return Product.PurchaseError.invalidQuantity
        case .notAvailableInStorefront: return StoreKitError.notAvailableInStorefront
        case .simulated(let simulated, _), .purchaseError(let simulated, _):
            return mapped(simulated)
        case .failedVerification(let simulated, _):
            return VerificationResult<Transaction>.VerificationError(simulated)
        default: return StoreKitError.systemError(error)
        }
    case is StoreKitError, is Product.PurchaseError: return error
    default: return StoreKitError.systemError(error)
    }
}

/// The StoreKit error a simulated one stands for.
private func mapped(_ simulated: SimulatedError) -> any Error {
    switch simulated {
    case .networkError: StoreKitError.networkError(URLError(.notConnectedToInternet))
    case .systemError: StoreKitError.systemError(SimulatedSystemError())
    case .notAvailableInStorefront: StoreKitError.notAvailableInStorefront
    case .notEntitled: StoreKitError.notEntitled
    case .unknown: StoreKitError.unknown
    case .userCancelled: StoreKitError.userCancelled
    case .productUnavailable: Product.PurchaseError.productUnavailable
    case .purchaseNotAllowed: Product.PurchaseError.purchaseNotAllowed
    case .invalidQuantity: Product.PurchaseError.invalidQuantity
    case .ineligibleForOffer: Product.PurchaseError.ineligibleForOffer
    case .invalidOfferIdentifier: Product.PurchaseError.invalidOfferIdentifier
    case .invalidOfferPrice: Product.PurchaseError.invalidOfferPrice
    case .invalidOfferSignature: Product.PurchaseError.invalidOfferSignature
    case .missingOfferParameters: Product.PurchaseError.missingOfferParameters
    default: VerificationResult<Transaction>.VerificationError(simulated)
    }
}

/// The error under a simulated `systemError`.
struct SimulatedSystemError: Error, CustomStringConvertible {
    var description: String { "simulated systemError" }
}

/// Runs an engine call, throwing StoreKit's errors instead of the engine's.
func storeKitCall<T>(_ work: () async throws -> T) async throws -> T {
    do { return try await work() } catch { throw storeKitError(error) }
}

/// Finds the store for a call, throwing StoreKit's errors instead of the configuration's.
func resolvedContext() throws -> StoreContext {
    do { return try StoreContext.resolve() } catch { throw storeKitError(error) }
}

/// Runs an engine call from synchronous code, throwing StoreKit's errors.
package func blockingStoreKitCall<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let result: Result<T, any Error> = BlockingExecutor.wait {
        do { return .success(try await work()) } catch { return .failure(storeKitError(error)) }
    }
    return try result.get()
}
