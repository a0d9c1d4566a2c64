import Foundation
import StoreEngine

/// StoreKit's device verification: a signed value carries a nonce and the SHA-384 of the nonce
/// and the device's `AppStore.deviceVerificationID`, both lowercased, so an app (or its server)
/// can check that the value was signed for this device.
///
/// Storefront's "device" is the store file and the app's bundle id: every process on the same
/// store file is the same device. The nonce is worked out from the signed value itself, so it is
/// the same at every read; neither is in the signed payload (the App Store's JWS has them as
/// `deviceVerification` and `deviceVerificationNonce`; the store signs without them).
enum DeviceVerification {
    /// The device's id for the store file `store` uses.
    static func id(of store: Store) -> UUID {
        uuid(Digest.sha256(Array("deviceVerificationID\u{0}\(store.path)\u{0}\(store.catalog.bundleID)".utf8)))
    }

    /// The nonce of the signed value `seed` stands for (its JWS).
    static func nonce(for seed: String) -> UUID {
        uuid(Digest.sha256(Array("deviceVerificationNonce\u{0}\(seed)".utf8)))
    }

    /// SHA-384 of the lowercased nonce followed by the lowercased device id, as StoreKit computes it.
    static func hash(nonce: UUID, device: UUID) -> Data {
        Data(Digest.sha384(Array((nonce.uuidString.lowercased() + device.uuidString.lowercased()).utf8)))
    }

    /// The hash for this nonce on the device of `store`.
    static func hash(nonce: UUID, store: Store) -> Data { hash(nonce: nonce, device: id(of: store)) }

    /// A version-4-shaped UUID from the first 16 bytes of a digest.
    private static func uuid(_ digest: [UInt8]) -> UUID {
        var bytes = Array(digest.prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

extension AppStore {
    /// This device's id for checking that signed values were signed for it (StoreKit's
    /// `deviceVerificationID`): one per store file and app. Nil when no store can be opened.
    public static var deviceVerificationID: UUID? {
        guard let context = try? StoreContext.resolve() else { return nil }
        return DeviceVerification.id(of: context.store)
    }
}
