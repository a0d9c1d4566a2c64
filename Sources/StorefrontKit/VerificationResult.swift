import Foundation
import StoreEngine

/// A signed value as it reached the app: verified, or unverified with the reason (StoreKit's `VerificationResult`).
public enum VerificationResult<SignedType: Sendable>: Sendable {
    /// The signature did not check out: do not deliver content for it.
    case unverified(SignedType, VerificationError)
    /// The signature checks out against the store's key.
    case verified(SignedType)

    /// Why a signed value failed verification, as StoreKit's `VerificationResult.VerificationError`.
    public enum VerificationError: Error, Sendable, Hashable {
        case revokedCertificate
        case invalidCertificateChain
        case invalidDeviceVerification
        case invalidEncoding
        case invalidSignature
        case missingRequiredProperties
    }

    /// The value when verified; throws the ``VerificationError`` otherwise.
    public var payloadValue: SignedType {
        get throws {
            switch self {
            case .verified(let value): return value
            case .unverified(_, let error): throw error
            }
        }
    }

    /// The value whether or not it verified.
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): value
        }
    }

    /// The JWS (compact serialization) the value was decoded from.
    public var jwsRepresentation: String {
        (unsafePayloadValue as? any SignedByStore)?.jws ?? ""
    }
}

/// A value that carries the JWS it came from.
protocol SignedByStore {
    var jws: String { get }
}

extension VerificationResult.VerificationError {
    /// The case of a simulated verification error; `invalidSignature` for anything else.
    init(_ simulated: SimulatedError?) {
        self = switch simulated {
        case .revokedCertificate: .revokedCertificate
        case .invalidCertificateChain: .invalidCertificateChain
        case .invalidDeviceVerification: .invalidDeviceVerification
        case .invalidEncoding: .invalidEncoding
        case .missingRequiredProperties: .missingRequiredProperties
        default: .invalidSignature
        }
    }
}

/// The payload of a compact JWS, as JSON bytes; empty when it cannot be decoded.
func jwsPayload(_ jws: String?) -> Data {
    guard let jws else { return Data() }
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return Data() }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64) ?? Data()
}
