import Foundation
import StoreEngine
import StorefrontUI

/// The app transaction, promotional offer keys and signatures, and offer codes.
enum OfferCommands {
    static let appTransactionHelp = CommandHelp(
        name: "app-transaction", usage: "app-transaction [--json]",
        summary: "Show the account's signed AppTransaction, as AppTransaction.shared",
        details: """
            Prints the app transaction the App Store signs for this account and app: bundle id,
            app version and original app version ("1.0", as in the sandbox), the original
            purchase date (when the account first used the store), the appTransactionId every
            transaction of the account carries, and the environment (the environment setting).
            It is a JWS signed with the store's x5c chain, as transactions are: a server decodes
            it with the App Store Server Library's verify_and_decode_app_transaction.
            --json prints its fields and "jwsRepresentation".
            """)
}

extension AppTransaction {
    var json: JSON {
        .object([
            "bundleID": .string(bundleID),
            "appVersion": .string(appVersion),
            "originalAppVersion": .string(originalAppVersion),
            "originalPurchaseDate": .string(originalPurchaseDate.iso8601),
            "appTransactionID": .string(appTransactionID),
            "environment": .string(environment.rawValue),
            "signedDate": .string(signedDate.iso8601),
            "jwsRepresentation": jwsRepresentation.map { .string($0) },
        ])
    }
}

extension Session {
    func appTransaction() async throws -> Report {
        let app = try await self.app.appTransaction()
        var table = Table("FIELD", "VALUE")
        table.add("bundleID", TerminalText.sanitized(app.bundleID))
        table.add("appVersion", app.appVersion)
        table.add("originalAppVersion", app.originalAppVersion)
        table.add("originalPurchaseDate", app.originalPurchaseDate.iso8601)
        table.add("appTransactionID", app.appTransactionID)
        table.add("environment", app.environment.rawValue)
        return Report(json: app.json, table.rendered)
    }
}
