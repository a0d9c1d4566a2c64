import StorefrontKit

// `import StoreKit` brings Foundation: Date, UUID, Decimal, UserDefaults, Data, JSONDecoder.
struct EntitlementCache {
    let defaults = UserDefaults.standard

    func remember(_ transaction: Transaction) {
        defaults.set(transaction.purchaseDate, forKey: "purchased.\(transaction.productID)")
    }

    func token(for userID: String) -> UUID { UUID(uuidString: userID) ?? UUID() }

    func total(_ products: [Product]) -> Decimal { products.reduce(Decimal(0)) { $0 + $1.price } }
}
