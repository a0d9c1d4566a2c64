import Foundation
import StoreEngine

/// A purchase as it reached the app (StoreKit's `Transaction`).
public struct Transaction: Sendable, Identifiable, Hashable, SignedByStore {
    package let engine: StoreEngine.Transaction
    package let context: StoreContext

    /// The transaction's id.
    public var id: UInt64 { UInt64(engine.id) }
    /// The id of the first transaction of this purchase (a subscription's renewals share it).
    public var originalID: UInt64 { UInt64(engine.originalID) }
    /// The product bought.
    public var productID: String { engine.productID }
    /// The kind of product.
    public var productType: Product.ProductType { Product.ProductType(engine.productType) }
    /// When it was bought (or renewed), by the store's clock.
    public var purchaseDate: Date { engine.purchaseDate }
    /// When the original transaction was bought.
    public var originalPurchaseDate: Date { engine.originalPurchaseDate }
    /// When a subscription period ends.
    public var expirationDate: Date? { engine.expirationDate }
    /// When it was refunded or revoked.
    public var revocationDate: Date? { engine.revocationDate }
    /// Why it was refunded or revoked.
    public var revocationReason: RevocationReason? { engine.revocationReason.map { RevocationReason(rawValue: $0.appStoreCode) } }
    /// What kind of refund or revocation it had (`revocationType`): full, prorated, or Family
    /// Sharing's; nil unless revoked. As signed, or the store's own rule for an unsigned copy.
    public var revocationType: RevocationType? {
        (payload["revocationType"] as? String ?? engine.revocationType?.rawValue).map(RevocationType.init(rawValue:))
    }
    /// The share of the price refunded, a percentage from 0 to 100 with three decimals (33.333):
    /// the signed `revocationPercentage` (milliunits) over 1,000; nil unless refunded.
    public var revocationPercentage: Decimal? {
        ((payload["revocationPercentage"] as? Int) ?? (jws.isEmpty ? engine.revocationPercentage : nil))
            .map { Decimal($0) / 1000 }
    }
    /// Whether a higher tier of the group replaced this subscription.
    public var isUpgraded: Bool { engine.isUpgraded }
    /// Bought by the account, or shared by family.
    public var ownershipType: OwnershipType { OwnershipType(rawValue: engine.ownershipType.appStoreName) }
    /// How many were bought (consumables).
    public var purchasedQuantity: Int { engine.purchasedQuantity }
    /// The app's own account id passed with `PurchaseOption.appAccountToken`.
    public var appAccountToken: UUID? { engine.appAccountToken }
    /// The environment the store runs as (`xcode` for a store file).
    public var environment: AppStore.Environment { AppStore.Environment(rawValue: engine.environment.appStoreName) }
    /// The subscription group of a subscription.
    public var subscriptionGroupID: String? { engine.subscriptionGroupID }
    /// The offer redeemed, if any: its type, id, payment mode and whole length.
    public var offer: Offer? {
        engine.offerType.map {
            Offer(type: OfferType($0), id: engine.offerID, paymentMode: engine.offerDiscountType.map(Offer.PaymentMode.init(rawValue:)),
                  period: engine.offerPeriod.map(Product.SubscriptionPeriod.init))
        }
    }
    /// The kind of offer redeemed (StoreKit's older spelling of `offer?.type`).
    public var offerType: OfferType? { offer?.type }
    /// The offer identifier redeemed (StoreKit's older spelling of `offer?.id`).
    public var offerID: String? { engine.offerID }
    /// The app's bundle id, as the App Store signed it (`bundleId`).
    public var appBundleID: String { payloadString("bundleId") ?? context.store.catalog.bundleID }
    /// One per subscription period, shared by the devices of the account (`webOrderLineItemId`);
    /// nil for anything but an auto-renewable subscription.
    public var webOrderLineItemID: String? { engine.productType == .autoRenewable ? engine.webOrderLineItemID : nil }
    /// The account's app download, the same in every transaction and in `AppTransaction.shared` (`appTransactionId`).
    public var appTransactionID: String {
        payloadString("appTransactionId") ?? AppTransactionID.make(account: engine.account, bundleID: context.store.catalog.bundleID)
    }
    /// A purchase, or an automatic renewal.
    public var reason: Reason { Reason(rawValue: engine.reason == .renewal ? "RENEWAL" : "PURCHASE") }
    /// The storefront it was bought in.
    public var storefront: Storefront { Storefront(countryCode: engine.storefront) }
    /// The price paid, in `currency`.
    public var price: Decimal? { engine.price }
    /// The currency of the price.
    public var currency: Locale.Currency? { engine.currency.isEmpty ? nil : Locale.Currency(engine.currency) }
    /// The UUID mixed into ``deviceVerification``: one per transaction, lowercased when hashed.
    public var deviceVerificationNonce: UUID { DeviceVerification.nonce(for: jws.isEmpty ? "transaction \(engine.id)" : jws) }
    /// SHA-384 of ``deviceVerificationNonce`` and `AppStore.deviceVerificationID`, lowercased and
    /// joined: how an app checks that the transaction was signed for this device.
    public var deviceVerification: Data { DeviceVerification.hash(nonce: deviceVerificationNonce, store: context.store) }
    /// When the App Store signed it.
    public var signedDate: Date { jwsSignedDate(engine.jwsRepresentation) ?? engine.purchaseDate }
    /// The signed payload as JSON, with the App Store's field names.
    public var jsonRepresentation: Data { jwsPayload(engine.jwsRepresentation) }
    var jws: String { engine.jwsRepresentation ?? "" }
    private var payload: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: jsonRepresentation)) as? [String: Any]) ?? [:]
    }
    private func payloadString(_ name: String) -> String? { payload[name] as? String }

    /// Tells the store the content is delivered: the transaction leaves `Transaction.unfinished`.
    public func finish() async {
        _ = try? await context.store.app.finish(engine)
        context.changed()
    }

    public static func == (a: Transaction, b: Transaction) -> Bool { a.engine == b.engine && a.context === b.context }
    public func hash(into hasher: inout Hasher) { hasher.combine(engine.id) }

    /// The engine's transaction as it reaches the app: verified, or not with the reason.
    package static func verification(of transaction: StoreEngine.Transaction, context: StoreContext) -> VerificationResult<Transaction> {
        let wrapped = Transaction(engine: transaction, context: context)
        if transaction.verification.isVerified && transaction.simulatedVerificationError == nil { return .verified(wrapped) }
        return .unverified(wrapped, .init(transaction.simulatedVerificationError))
    }
}

extension Transaction {
    /// Why a transaction was revoked (StoreKit's `Transaction.RevocationReason`).
    public struct RevocationReason: RawRepresentable, Hashable, Sendable {
        /// StoreKit's raw value.
        public let rawValue: Int
        /// Creates the reason with this raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Refunded because of a problem in the app.
        public static let developerIssue = RevocationReason(rawValue: 1)
        /// Refunded for another reason.
        public static let other = RevocationReason(rawValue: 0)
    }

    /// What kind of refund or revocation a transaction had (StoreKit's `Transaction.RevocationType`),
    /// with the App Store's names (`revocationType` in signed payloads).
    public struct RevocationType: RawRepresentable, Hashable, Sendable {
        /// The App Store's name.
        public let rawValue: String
        /// Creates the type with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The whole price refunded (`REFUND_FULL`).
        public static let fullRefund = RevocationType(rawValue: StoreEngine.Transaction.RevocationType.refundFull.rawValue)
        /// Part of the price refunded: ``Transaction/revocationPercentage`` (`REFUND_PRORATED`).
        public static let proratedRefund = RevocationType(rawValue: StoreEngine.Transaction.RevocationType.refundProrated.rawValue)
        /// A family member's access ended: nothing refunded to them (`FAMILY_REVOKE`).
        public static let familyRevocation = RevocationType(rawValue: StoreEngine.Transaction.RevocationType.familyRevoke.rawValue)
    }

    /// Bought by the account or shared by family (StoreKit's `Transaction.OwnershipType`).
    public struct OwnershipType: RawRepresentable, Hashable, Sendable {
        /// StoreKit's raw value.
        public let rawValue: String
        /// Creates the type with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Bought by this account.
        public static let purchased = OwnershipType(rawValue: StoreEngine.Transaction.OwnershipType.purchased.appStoreName)
        /// Shared by a family member.
        public static let familyShared = OwnershipType(rawValue: StoreEngine.Transaction.OwnershipType.familyShared.appStoreName)
    }

    /// Why the transaction exists (StoreKit's `Transaction.Reason`).
    public struct Reason: RawRepresentable, Hashable, Sendable {
        /// StoreKit's raw value.
        public let rawValue: String
        /// Creates the reason with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The user bought it.
        public static let purchase = Reason(rawValue: "PURCHASE")
        /// A subscription renewed.
        public static let renewal = Reason(rawValue: "RENEWAL")
    }

    /// The kind of offer a transaction redeemed (StoreKit's `Transaction.OfferType`), with the
    /// App Store's numbers (`offerType` in signed payloads).
    public struct OfferType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The App Store's number: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
        public let rawValue: Int
        /// Creates the offer type with this raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// An introductory offer.
        public static let introductory = OfferType(rawValue: 1)
        /// A promotional offer.
        public static let promotional = OfferType(rawValue: 2)
        /// An offer code.
        public static let code = OfferType(rawValue: 3)
        /// A win-back offer.
        public static let winBack = OfferType(rawValue: 4)

        init(_ type: StoreEngine.Transaction.OfferType) {
            self = switch type {
            case .introductory: .introductory
            case .promotional: .promotional
            case .code: .code
            case .winBack: .winBack
            }
        }

        /// The case name.
        public var description: String {
            ["", "introductory", "promotional", "code", "winBack"][safe: rawValue] ?? "\(rawValue)"
        }
    }

    /// The offer a transaction redeemed (StoreKit's `Transaction.Offer`).
    public struct Offer: Hashable, Sendable {
        /// The kind of offer.
        public let type: OfferType
        /// The offer identifier; nil for an introductory offer.
        public let id: String?
        /// How the offer is paid (`offerDiscountType`).
        public let paymentMode: PaymentMode?
        /// The offer's whole length (`offerPeriod`): a pay-as-you-go offer's periods together.
        public let period: Product.SubscriptionPeriod?

        /// How an offer is paid (StoreKit's `Transaction.Offer.PaymentMode`).
        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            /// The App Store's name (`offerDiscountType`).
            public let rawValue: String
            /// Creates the payment mode with this raw value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// Nothing to pay for the offer's periods.
            public static let freeTrial = PaymentMode(.freeTrial)
            /// The offer price each period.
            public static let payAsYouGo = PaymentMode(.payAsYouGo)
            /// The offer price once, up front.
            public static let payUpFront = PaymentMode(.payUpFront)
            /// A consumable's, non-consumable's or non-renewing subscription's offer: bought once at its price.
            public static let oneTime = PaymentMode(rawValue: "ONE_TIME")

            init(_ mode: StoreEngine.PaymentMode) { self.init(rawValue: mode.offerDiscountType) }
        }
    }
}
