import Foundation
import StoreEngine

extension Product.SubscriptionInfo.RenewalInfo {
    /// Why a subscription expired (StoreKit's `RenewalInfo.ExpirationReason`), with the App Store's
    /// numbers (`expirationIntent` in signed payloads).
    public struct ExpirationReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The App Store's number: 1 auto-renew disabled, 2 billing error, 3 no consent to a price
        /// increase, 4 product unavailable, 5 unknown.
        public let rawValue: Int
        /// Creates the reason with this raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The customer turned auto-renew off.
        public static let autoRenewDisabled = ExpirationReason(rawValue: 1)
        /// The App Store could not bill the renewal.
        public static let billingError = ExpirationReason(rawValue: 2)
        /// The customer did not agree to a price increase that needed their consent.
        public static let didNotConsentToPriceIncrease = ExpirationReason(rawValue: 3)
        /// The product was not for sale at the renewal.
        public static let productUnavailable = ExpirationReason(rawValue: 4)
        /// Another reason.
        public static let unknown = ExpirationReason(rawValue: 5)

        init(_ reason: StoreEngine.ExpirationReason) { self.init(rawValue: reason.appStoreCode) }

        /// The case name.
        public var description: String {
            ["", "autoRenewDisabled", "billingError", "didNotConsentToPriceIncrease", "productUnavailable", "unknown"][safe: rawValue]
                ?? "\(rawValue)"
        }
    }

    /// Why the subscription expired, once it has, or `.billingError` while a renewal that failed
    /// to bill is retried (grace period included), as Apple's; nil otherwise.
    public var expirationReason: ExpirationReason? { engine.expirationReason.map(ExpirationReason.init) }
    /// The offer the next renewal takes, if any: its type, id, payment mode and whole length.
    public var offer: Transaction.Offer? {
        engine.offerType.map {
            Transaction.Offer(type: Transaction.OfferType($0), id: engine.offerID,
                              paymentMode: engine.offerPaymentMode.map(Transaction.Offer.PaymentMode.init),
                              period: engine.offerPeriod.map(Product.SubscriptionPeriod.init))
        }
    }
    /// The kind of offer the next renewal takes (StoreKit's older spelling of `offer?.type`).
    public var offerType: Transaction.OfferType? { offer?.type }
    /// The promotional offer the next renewal takes (StoreKit's older spelling of `offer?.id`).
    public var offerID: String? { engine.offerID }
    /// The currency of the renewal price.
    public var currency: Locale.Currency? { engine.currency.isEmpty ? nil : Locale.Currency(engine.currency) }
    /// The token the app set on the purchase (`PurchaseOption.appAccountToken`), if any.
    public var appAccountToken: UUID? { engine.appAccountToken }
    /// The account's app download (`appTransactionId`), as in every transaction.
    public var appTransactionID: String? { engine.appTransactionID }
    /// The environment it was signed for (the `environment` setting).
    public var environment: AppStore.Environment { AppStore.Environment(rawValue: engine.environment.appStoreName) }
    /// When the App Store signed it.
    public var signedDate: Date { jwsSignedDate(engine.jwsRepresentation) ?? engine.recentSubscriptionStartDate }
    /// The UUID mixed into ``deviceVerification``.
    public var deviceVerificationNonce: UUID {
        DeviceVerification.nonce(for: jws.isEmpty ? "renewal \(engine.originalTransactionID)" : jws)
    }
    /// SHA-384 of ``deviceVerificationNonce`` and `AppStore.deviceVerificationID`, lowercased and
    /// joined (see `Transaction.deviceVerification`); empty for a value not read from a store.
    public var deviceVerification: Data {
        device.map { DeviceVerification.hash(nonce: deviceVerificationNonce, device: $0) } ?? Data()
    }
}
