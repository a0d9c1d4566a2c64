/// A StoreKit error the store can be told to raise (`purchaseError`,
/// `loadProductsError`, `restoreError`, `verificationError`), by its Swift case name.
public enum SimulatedError: String, Sendable, Hashable, CaseIterable {
    // StoreKitError
    case networkError
    case systemError
    case notAvailableInStorefront
    case notEntitled
    case unknown
    case userCancelled
    /// The device or platform does not support the call (iOS 18.4's `StoreKitError.unsupported`).
    case unsupported
    // Product.PurchaseError
    case productUnavailable
    case purchaseNotAllowed
    case invalidQuantity
    case ineligibleForOffer
    case invalidOfferIdentifier
    case invalidOfferPrice
    case invalidOfferSignature
    case missingOfferParameters
    // VerificationResult.VerificationError
    case invalidSignature
    case invalidCertificateChain
    case invalidDeviceVerification
    case invalidEncoding
    case missingRequiredProperties
    case revokedCertificate

    /// The Swift type that declares the case.
    public enum Domain: String, Sendable, CaseIterable {
        case storeKitError = "StoreKitError"
        case purchaseError = "Product.PurchaseError"
        case verificationError = "VerificationResult.VerificationError"
    }

    public var domain: Domain {
        switch self {
        case .networkError, .systemError, .notAvailableInStorefront, .notEntitled, .unknown, .userCancelled, .unsupported:
            .storeKitError
        case .productUnavailable, .purchaseNotAllowed, .invalidQuantity, .ineligibleForOffer, .invalidOfferIdentifier,
             .invalidOfferPrice, .invalidOfferSignature, .missingOfferParameters:
            .purchaseError
        case .invalidSignature, .invalidCertificateChain, .invalidDeviceVerification, .invalidEncoding,
             .missingRequiredProperties, .revokedCertificate:
            .verificationError
        }
    }

    /// The `SKError.Code` a StoreKit 1 app sees for it, where one matches.
    public var skErrorCode: Int? {
        switch self {
        case .unknown, .systemError, .notEntitled: 0  // unknown
        case .userCancelled: 2  // paymentCancelled
        case .invalidQuantity: 3  // paymentInvalid
        case .purchaseNotAllowed: 4  // paymentNotAllowed
        case .productUnavailable, .notAvailableInStorefront: 5  // storeProductNotAvailable
        case .networkError: 7  // cloudServiceNetworkConnectionFailed
        case .invalidOfferIdentifier: 11
        case .invalidOfferSignature: 12
        case .missingOfferParameters: 13
        case .invalidOfferPrice: 14
        case .ineligibleForOffer: 18
        case .unsupported: 19  // unsupportedPlatform
        case .invalidSignature, .invalidCertificateChain, .invalidDeviceVerification, .invalidEncoding,
             .missingRequiredProperties, .revokedCertificate: nil
        }
    }

    /// What Apple's documentation says the case means, in a sentence.
    public var message: String {
        switch self {
        case .networkError: "The App Store could not be reached (no network connection)."
        case .systemError: "A system error occurred."
        case .notAvailableInStorefront: "The product is not available in the current storefront."
        case .notEntitled: "The app is not entitled to this request."
        case .unknown: "An unknown error occurred."
        case .userCancelled: "The user cancelled."
        case .unsupported: "The operation is not supported on this device."
        case .productUnavailable: "The product is not available."
        case .purchaseNotAllowed: "The account is not allowed to make purchases."
        case .invalidQuantity: "The quantity is not allowed."
        case .ineligibleForOffer: "The account is not eligible for the offer."
        case .invalidOfferIdentifier: "The offer identifier is not valid."
        case .invalidOfferPrice: "The offer price is not valid."
        case .invalidOfferSignature: "The offer signature is not valid."
        case .missingOfferParameters: "Offer parameters are missing."
        case .invalidSignature: "The transaction's signature is not valid."
        case .invalidCertificateChain: "The certificate chain is not valid."
        case .invalidDeviceVerification: "The device verification does not match this device."
        case .invalidEncoding: "The JWS is not encoded correctly."
        case .missingRequiredProperties: "Required properties are missing."
        case .revokedCertificate: "A certificate in the chain was revoked."
        }
    }

    /// The cases of some domains, for a setting's allowed values.
    public static func cases(in domains: Set<Domain>) -> [SimulatedError] {
        allCases.filter { domains.contains($0.domain) }
    }
}
