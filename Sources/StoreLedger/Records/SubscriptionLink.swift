import Foundation
import StoreCatalog
import StoreSigning

/// One period of a subscription as the store file keeps it, without its signature.
package struct SubscriptionLink: Equatable {
    package var productID: String
    /// Bought by the user (a purchase, an upgrade, a resubscription), not renewed.
    package var isPurchase: Bool
    package var offerType: Transaction.OfferType?
    package var offerID: String?
    package var purchaseDate: Date
    package var expirationDate: Date?
}
