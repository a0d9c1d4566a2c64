import Foundation

/// The RazeFaces the app sells (non-consumables in the repository's products.json), and its one store.
public enum RazeFaceProducts {
    public static let SwiftShopping = "com.razeware.razefaces.swiftshopping"
    public static let iPhoneRage = "com.razeware.razefaces.iphonerage"
    public static let NightlyRage = "com.razeware.razefaces.nightlyrage"

    public static let productIdentifiers: Set<ProductIdentifier> = [SwiftShopping, iPhoneRage, NightlyRage]
}
