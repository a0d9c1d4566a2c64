import Foundation
import StoreCatalog
import StoreSigning

/// A key that signs promotional offers (App Store Connect's "In-App Purchase key"),
/// registered in the store (`offer-keys add`, `offer-keys create`).
public struct OfferKey: Sendable, Hashable {
    public var keyID: String
    /// The issuer id the compact JWS form's `iss` must carry; nil: any.
    public var issuerID: String?
    public var publicKeyPEM: String
    /// Whether the store holds the private half, so `offer sign` can sign with it.
    public var canSign: Bool
    public var created: Date
    /// Whether it is the catalog's own key (a `.storekit` file's `subscriptionOffersKeyPair`),
    /// used while the store runs on that catalog and never written to the store file.
    public var isFromCatalog = false

    /// Memberwise, for the targets above this one.
    package init(keyID: String, issuerID: String? = nil, publicKeyPEM: String, canSign: Bool, created: Date) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.publicKeyPEM = publicKeyPEM
        self.canSign = canSign
        self.created = created
    }
}
