import Foundation
import StorefrontKit

// StorefrontKit's side of the Parity suite, in a file that sees StoreKit's names only
// (`Transaction`, `Product`: StorefrontKit's, not the engine's records).

/// What an app using StorefrontKit reads of a store: its entitlements, each group's state and
/// renewal info, and each transaction's price.
struct StoreKitReading: Sendable {
    /// `Transaction.currentEntitlements`' product ids.
    var entitled: Set<String> = []
    /// `Product.SubscriptionInfo.status(for:)`'s first state of each group ("subscribed", "inGracePeriod", …).
    var states: [String: String] = [:]
    /// Each group's first status's renewal info: whether it renews, and to which product.
    var renewals: [String: (willAutoRenew: Bool, preference: String?)] = [:]
    /// `Transaction.all`: each transaction's price, currency and storefront, by id.
    var prices: [Int64: (price: Decimal?, currency: String?, storefront: String)] = [:]

    /// Each subscription's offers' display prices: introductory, promotional, win-back, by product id.
    var offerPrices: [String: [String]] = [:]

    /// Reads the store the task's StorefrontKit context names.
    static func read(groups: [String], products: [String]) async throws -> StoreKitReading {
        var reading = StoreKitReading()
        for product in try await Product.products(for: products) {
            guard let info = product.subscription else { continue }
            let offers = (info.introductoryOffer.map { [$0] } ?? []) + info.promotionalOffers + info.winBackOffers
            reading.offerPrices[product.id] = offers.map(\.displayPrice)
        }
        for await result in Transaction.currentEntitlements {
            reading.entitled.insert(result.unsafePayloadValue.productID)
        }
        for group in groups {
            if let status = try await Product.SubscriptionInfo.status(for: group).first {
                reading.states[group] = status.state.description
                let info = status.renewalInfo.unsafePayloadValue
                reading.renewals[group] = (info.willAutoRenew, info.autoRenewPreference)
            }
        }
        for await result in Transaction.all {
            let transaction = result.unsafePayloadValue
            reading.prices[Int64(transaction.id)] = (transaction.price, transaction.currency?.identifier, transaction.storefront.countryCode)
        }
        return reading
    }
}
