import StorefrontKit

// AppTransaction: appID, appVersionID, preorderDate, originalPlatform, device verification.
enum AppPurchaseCheck {
    static func facts() async throws -> String {
        let shared = try await AppTransaction.shared
        guard case .verified(let appTransaction) = shared else { return "unverified" }
        let id = appTransaction.appID.map(String.init) ?? "sandbox"
        let version = appTransaction.appVersionID.map(String.init) ?? "-"
        let preordered = appTransaction.preorderDate != nil
        let platform: String = switch appTransaction.originalPlatform {
        case .iOS: "iOS"
        case .macOS: "macOS"
        case .tvOS: "tvOS"
        case .visionOS: "visionOS"
        default: appTransaction.originalPlatform.rawValue
        }
        return "\(id) \(version) \(preordered) \(platform) \(appTransaction.deviceVerification.count) \(appTransaction.deviceVerificationNonce)"
    }
}
