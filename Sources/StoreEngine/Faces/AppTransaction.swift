import Foundation

/// The app's purchase as the App Store records it (StoreKit 2's `AppTransaction`),
/// signed like a transaction: a compact JWS with the store's `x5c` chain, whose payload
/// has the names of Apple's `JWSAppTransactionDecodedPayload`.
///
/// In the sandbox and in Xcode Apple reports `originalApplicationVersion` as "1.0"; the
/// simulator does the same for both versions. The original purchase date is when the
/// account first used the store (the app's "download"); `appTransactionId` is the one
/// every transaction of the account carries (see ``AppTransactionID``).
public struct AppTransaction: Sendable, Hashable {
    public var bundleID: String
    /// The app's version (`applicationVersion`, the `CFBundleVersion`).
    public var appVersion: String
    /// The version the account first got (`originalApplicationVersion`).
    public var originalAppVersion: String
    public var originalPurchaseDate: Date
    public var appTransactionID: String
    public var environment: Transaction.AppStoreEnvironment
    /// When the App Store signed it (`signedDate`, `receiptCreationDate`).
    public var signedDate: Date
    /// The platform of the first purchase (`originalPlatform`).
    public var originalPlatform = "iOS"
    /// The app's Apple ID (`appAppleId`): Production's only, nil in Sandbox and Xcode.
    public var appAppleID: Int64?
    public var jwsRepresentation: String?

    /// The version the simulator reports for the app and its first download, as the sandbox does.
    public static let sandboxVersion = "1.0"

    /// The JWS payload, with the names of Apple's `JWSAppTransactionDecodedPayload`.
    public func signedPayload() -> JSON {
        .object([
            "receiptType": .string(environment.appStoreName),
            "appAppleId": appAppleID.map { .integer($0) },
            "bundleId": .string(bundleID),
            "applicationVersion": .string(appVersion),
            "originalApplicationVersion": .string(originalAppVersion),
            "originalPurchaseDate": .integer(originalPurchaseDate.milliseconds),
            "receiptCreationDate": .integer(signedDate.milliseconds),
            "signedDate": .integer(signedDate.milliseconds),
            "appTransactionId": .string(appTransactionID),
            "originalPlatform": .string(originalPlatform),
        ])
    }
}
