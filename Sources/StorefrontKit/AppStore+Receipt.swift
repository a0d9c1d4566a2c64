import Foundation
import StoreEngine

extension AppStore {
    /// Where the app receipt is: the stand-in for StoreKit 1's `Bundle.main.appStoreReceiptURL`
    /// (Foundation's on Linux is always nil). Beside the store file, per account:
    /// `store.sqlite` → `store.StoreKit/ACCOUNT/sandboxReceipt` (`receipt` in Production).
    ///
    /// Reading it brings the file up to date with the account's purchases, as StoreKit
    /// writes the receipt after each transaction. A fresh account that never refreshed has
    /// no file yet, as in Apple's sandbox: start an `SKReceiptRefreshRequest`. Nil when no
    /// store can be opened. Waits briefly for the store file.
    public static var receiptURL: URL? {
        BlockingExecutor.wait {
            guard let context = try? StoreContext.resolve() else { return nil }
            return try? await context.store.app.appReceiptURL()
        }
    }
}
