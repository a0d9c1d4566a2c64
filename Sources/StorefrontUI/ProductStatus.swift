import Foundation
import StoreEngine

/// The words shown beside a product for what the account has of it, shared by
/// the paywall and the CLI so both say the same thing.
public enum ProductStatus {
    /// "Owned", "Renews Dec 30, 2027", "Active until Feb 28, 2027", "Balance: 300", or "".
    public static func text(for product: Product, owned: Transaction?, balance: Int?) -> String {
        switch product.type {
        case .consumable:
            return "Balance: \(balance ?? 0)"
        case .nonConsumable:
            return owned == nil ? "" : "Owned"
        case .nonRenewable, .autoRenewable:
            guard let owned else { return "" }
            guard let expiration = owned.expirationDate else { return "Active" }
            let prefix = product.type == .autoRenewable ? "Renews" : "Active until"
            return "\(prefix) \(shortDate(expiration))"
        }
    }

    /// "Dec 30, 2027", in UTC so every terminal and test agrees.
    public static func shortDate(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: "en_US"))
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style)
    }
}
