import Foundation
import StoreEngine

/// The domain of StoreKit 1's errors, as Apple's `SKErrorDomain`.
public let SKErrorDomain = "SKErrorDomain"

/// An error of StoreKit 1 (`SKPaymentTransaction.error`, `SKRequestDelegate.request(_:didFailWithError:)`),
/// with Apple's `SKError.Code` cases and raw values.
///
/// As Apple's, a bridged `NSError`: it wraps one of domain `SKErrorDomain` (``_nsError``), and libraries
/// make one with `SKError(_nsError:)` or `SKError(.paymentCancelled, userInfo: […])`; ``code``,
/// ``userInfo``, ``errorCode`` and ``errorUserInfo`` read it.
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

    /// The `NSError` it bridges (domain `SKErrorDomain`).
    public let _nsError: NSError

    /// The error `error` bridges, as Apple's `SKError(_nsError:)`. Its domain must be `SKErrorDomain`
    /// (Apple's traps on another; so does this).
    public init(_nsError error: NSError) {
        precondition(error.domain == SKErrorDomain, "SKError(_nsError:) of an error of domain \(error.domain)")
        _nsError = error
    }

    /// An error with `code` and `userInfo`, as Apple's `SKError(_:userInfo:)`.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.init(_nsError: NSError(domain: SKErrorDomain, code: code.rawValue, userInfo: userInfo))
    }

    /// An error with `code`, described by `description` (its user info's `NSLocalizedDescriptionKey`).
    public init(_ code: Code, description: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: description])
    }

    /// The error's code (a code StoreKit does not know reads as `unknown`; Apple's traps).
    public var code: Code { Code(rawValue: _nsError.code) ?? .unknown }
    /// The bridged error's user info.
    public var userInfo: [String: Any] { _nsError.userInfo }
    /// What went wrong, in a sentence: the user info's `NSLocalizedDescriptionKey`, else the code's name.
    public var localizedDescription: String { userInfo[NSLocalizedDescriptionKey] as? String ?? "SKError.\(code)" }

    public static var errorDomain: String { SKErrorDomain }
    public var errorCode: Int { _nsError.code }
    public var errorUserInfo: [String: Any] { userInfo }
    public var description: String { "SKError.\(code) (\(errorCode)): \(localizedDescription)" }

    /// Equal when the bridged errors are (domain, code and user info).
    public static func == (lhs: SKError, rhs: SKError) -> Bool { lhs._nsError.isEqual(rhs._nsError) }
    public func hash(into hasher: inout Hasher) {
        // Not `NSError.hash`: this toolchain's Foundation recurses in it.
        hasher.combine(errorCode)
        hasher.combine(localizedDescription)
    }

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
    public static var cloudServicePermissionDenied: Code { .cloudServicePermissionDenied }
    public static var cloudServiceRevoked: Code { .cloudServiceRevoked }
    public static var privacyAcknowledgementRequired: Code { .privacyAcknowledgementRequired }
    public static var unauthorizedRequestData: Code { .unauthorizedRequestData }
    public static var overlayCancelled: Code { .overlayCancelled }
    public static var overlayInvalidConfiguration: Code { .overlayInvalidConfiguration }
    public static var overlayTimeout: Code { .overlayTimeout }
    public static var overlayPresentedInBackgroundScene: Code { .overlayPresentedInBackgroundScene }
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
