import Foundation

extension AppFace {
    /// `Bundle.main.appStoreReceiptURL`: where the app reads its receipt, the file brought up
    /// to date first when there is one or when the account has bought something. A fresh
    /// account that never refreshed gets a URL with no file, as in Apple's sandbox.
    public func appReceiptURL() async throws -> URL { try await store.appReceiptURL() }

    /// `SKReceiptRefreshRequest`: makes the receipt anew (signed now, store time) and writes it
    /// at ``appReceiptURL()``; returns the URL. `properties` make a test receipt as the
    /// sandbox's `receiptProperties` do: expired, or for a volume purchase.
    @discardableResult
    public func refreshReceipt(properties: ReceiptProperties = []) async throws -> URL {
        try await store.refreshAppReceipt(properties: properties)
    }

    /// The account's receipt made now, signed (PKCS#7 DER), without writing it anywhere.
    public func appReceipt() async throws -> [UInt8] { try await store.signedAppReceipt() }

    /// The device identifier the receipt's SHA-1 hash covers (`identifierForVendor`'s stand-in).
    public func deviceIdentifier() async -> UUID { await store.deviceIdentifier() }

    /// Opens a receipt as a server does: its PKCS#7 signature and chain against the store's
    /// root, then its fields.
    public func openReceipt(_ der: [UInt8]) async throws(ReceiptFailure) -> AppReceipt {
        try await store.openReceipt(der)
    }
}
