import Foundation
import StoreEngine

/// The domain of StoreKit 1's errors, as Apple's `SKErrorDomain`.
public let SKErrorDomain = "SKErrorDomain"

/// An error of StoreKit 1 (`SKPaymentTransaction.error`, `SKRequestDelegate.request(_:didFailWithError:)`),
/// with Apple's `SKError.Code` cases and raw values.
public struct SKError: Error, Sendable, Hashable, CustomNSError, CustomStringConvertible {
    /// StoreKit 1's error codes, in Apple's order (their raw values are `SKErrorCode`'s).
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case unknown = 0
        case clientInvalid = 1
        case paymentCancelled = 2
        case paymentInvalid = 3
        case paymentNotAllowed = 4
        case storeProductNotAvailable = 5
        case cloudServicePermissionDenied = 6
        case cloudServiceNetworkConnectionFailed = 7
        case cloudServiceRevoked = 8
        case privacyAcknowledgementRequired = 9
        case unauthorizedRequestData = 10
        case invalidOfferIdentifier = 11
        case invalidSignature = 12
        case missingOfferParams = 13
        case invalidOfferPrice = 14
        case overlayCancelled = 15
        case overlayInvalidConfiguration = 16
        case overlayTimeout = 17
        case ineligibleForOffer = 18
        case unsupportedPlatform = 19
        case overlayPresentedInBackgroundScene = 20
    }

    /// The error's code.
    public let code: Code
    /// What went wrong, in a sentence (the `NSLocalizedDescriptionKey` of the error's user info).
    public let localizedDescription: String

    /// An error with `code`, described by `description` (nil: the code's name).
    public init(_ code: Code, description: String? = nil) {
        self.code = code
        self.localizedDescription = description ?? "SKError.\(code)"
    }

    public static var errorDomain: String { SKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: localizedDescription] }
    public var description: String { "SKError.\(code) (\(code.rawValue)): \(localizedDescription)" }

    public static var unknown: Code { .unknown }
    public static var clientInvalid: Code { .clientInvalid }
    public static var paymentCancelled: Code { .paymentCancelled }
    public static var paymentInvalid: Code { .paymentInvalid }
    public static var paymentNotAllowed: Code { .paymentNotAllowed }
    public static var storeProductNotAvailable: Code { .storeProductNotAvailable }
    public static var cloudServiceNetworkConnectionFailed: Code { .cloudServiceNetworkConnectionFailed }
    public static var invalidOfferIdentifier: Code { .invalidOfferIdentifier }
    public static var invalidSignature: Code { .invalidSignature }
    public static var missingOfferParams: Code { .missingOfferParams }
    public static var invalidOfferPrice: Code { .invalidOfferPrice }
    public static var ineligibleForOffer: Code { .ineligibleForOffer }
    public static var unsupportedPlatform: Code { .unsupportedPlatform }
}

extension SKError.Code {
    /// Lets `catch SKError.paymentCancelled` match, as it does for Apple's bridged `SKError`.
    public static func ~= (code: SKError.Code, error: any Error) -> Bool {
        (error as? SKError)?.code == code
    }
}

extension SKError {
    /// The StoreKit 1 error for what the engine threw (its `skErrorCode`), or `unknown`.
    package init(storeError error: any Error) {
        if let error = error as? SKError { self = error; return }
        if let error = error as? StoreError {
            let code = error.skErrorCode.flatMap(Code.init(rawValue:)) ?? .unknown
            self.init(code, description: error.description)
            return
        }
        self.init(.unknown, description: "\(error)")
    }
}
