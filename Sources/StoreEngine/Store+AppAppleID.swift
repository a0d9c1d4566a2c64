import Foundation

/// The app's Apple ID (`appAppleId`) in what the App Store signs for the app.
///
/// Apple puts it in Production's notifications (`data.appAppleId`, a mass extension's
/// `summary.appAppleId`) and app transaction; in Sandbox and Xcode there is none. Apple's
/// `SignedDataVerifier` in Production checks it against the one the backend was given, so a
/// store in Production without the `appAppleId` setting makes payloads that verifier refuses,
/// as Apple's would be for another app.
extension Store {
    /// The `appAppleId` payloads carry now: the setting's, in Production only.
    func payloadAppAppleID() throws -> Int64? {
        guard try ledger.environment() == .production else { return nil }
        return try value(.appAppleId)
    }

    /// `members` with the app's Apple ID in front when payloads carry one now.
    func withAppAppleID(_ members: [JSON.Member]) throws -> [JSON.Member] {
        guard let id = try payloadAppAppleID() else { return members }
        return [JSON.Member("appAppleId", .integer(id))] + members
    }
}
