import StorefrontKit

// StoreKitError, Product.PurchaseError, Transaction.RefundRequestError and
// VerificationResult.VerificationError are LocalizedErrors, shown to the user as they are.
enum PurchaseAlert {
    static func message(for error: Error) -> String {
        switch error {
        case let error as StoreKitError:
            switch error {
            case .userCancelled: return ""
            case .networkError(let underlying): return "Offline (\(underlying.code.rawValue))"
            case .systemError(let underlying): return "\(underlying)"
            case .notAvailableInStorefront, .notEntitled, .unsupported, .unknown: return error.localizedDescription
            @unknown default: return error.localizedDescription
            }
        case let error as Product.PurchaseError:
            switch error {
            case .invalidQuantity, .productUnavailable, .purchaseNotAllowed, .ineligibleForOffer, .invalidOfferIdentifier,
                 .invalidOfferPrice, .invalidOfferSignature, .missingOfferParameters:
                return error.errorDescription ?? error.localizedDescription
            @unknown default: return error.localizedDescription
            }
        case let error as Transaction.RefundRequestError:
            return [error.errorDescription, error.failureReason].compactMap { $0 }.joined(separator: " ")
        case let error as VerificationResult<Transaction>.VerificationError:
            switch error {
            case .revokedCertificate, .invalidCertificateChain, .invalidDeviceVerification, .invalidEncoding,
                 .invalidSignature, .missingRequiredProperties:
                return error.recoverySuggestion ?? error.localizedDescription
            @unknown default: return error.localizedDescription
            }
        case let error as LocalizedError:
            return error.errorDescription ?? ""
        default:
            return error.localizedDescription
        }
    }
}
