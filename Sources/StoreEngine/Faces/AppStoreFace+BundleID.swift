import Foundation

extension AppStoreFace {
    /// The bundle id the store file's newest signed transaction names: the app whose purchases
    /// the file holds, which is not the catalog's when the file was made with another app's
    /// catalog. Nil when nothing is signed yet.
    public func signedBundleID() async -> String? { await store.signedBundleID() }
}

extension Store {
    func signedBundleID() -> String? { ledger.signedBundleID() }
}
