import Foundation
import StoreEngine

/// `receipt [refresh]`: the app receipt (StoreKit 1), as the app reads it and sends it to its backend.
struct ReceiptCommand: StorefrontCommand {
    /// `refresh`: made anew first, as `SKReceiptRefreshRequest`.
    var refresh = false

    static let help = CommandHelp(
        name: "receipt", usage: "receipt [refresh] [--json]",
        summary: "Print the app receipt's base64 (receipt-data), or make it anew (SKReceiptRefreshRequest)",
        details: """
            The account's app receipt: a PKCS#7 file in Apple's ASN.1 format listing every in-app
            purchase, signed by the store's certificate authority, where the app reads it
            (AppStore.receiptURL, beside the store file: STORE.StoreKit/ACCOUNT/sandboxReceipt).
            Prints its base64, the receipt-data a backend sends to verifyReceipt; made anew first
            when there is none yet, and brought up to date with the account's purchases.
              refresh   makes it anew, as SKReceiptRefreshRequest, and prints its path
            --json prints "path", "receiptData", "receiptType" and the "transactionIds" it lists.
            openssl smime -verify -binary -inform DER -in PATH -CAfile <(storefront key export --root)
            checks its signature.
            """,
        operands: [.words(["refresh"])])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        switch line.args {
        case []: return Self()
        case ["refresh"]: return Self(refresh: true)
        default: throw UsageError(description: "receipt takes nothing, or refresh", command: line.name)
        }
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        var url = try await session.app.appReceiptURL()
        if refresh || !FileManager.default.fileExists(atPath: url.path) { url = try await session.app.refreshReceipt() }
        let der = [UInt8](try Data(contentsOf: url))
        let receipt = try await session.app.openReceipt(der)
        let base64 = Data(der).base64EncodedString()
        let json = JSON.object([
            "path": .string(url.path), "receiptData": .string(base64), "receiptType": .string(receipt.receiptType),
            "transactionIds": .array(receipt.inAppPurchases.map { .string($0.transactionID) }),
        ])
        return Report(json: json, refresh ? "Receipt refreshed: \(url.path)" : base64)
    }
}
