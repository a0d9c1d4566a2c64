import Foundation
import StoreEngine

/// A signed value as it reached the app: verified, or unverified with the reason (StoreKit's `VerificationResult`).
public enum VerificationResult<SignedType: Sendable>: Sendable {
    /// The signature did not check out: do not deliver content for it.
    case unverified(SignedType, VerificationError)
    /// The signature checks out against the store's key.
    case verified(SignedType)

    /// Why a signed value failed verification, as StoreKit's `VerificationResult.VerificationError`.
    public enum VerificationError: Error, LocalizedError, Sendable, Hashable {
        case revokedCertificate
        case invalidCertificateChain
        case invalidDeviceVerification
        case invalidEncoding
        case invalidSignature
        case missingRequiredProperties

        /// What went wrong, in a sentence.
        public var errorDescription: String? {
            switch self {
            case .revokedCertificate: "A certificate of the signature was revoked."
            case .invalidCertificateChain: "The signature's certificate chain is not valid."
            case .invalidDeviceVerification: "The signed data is not for this device."
            case .invalidEncoding: "The signed data is not encoded correctly."
            case .invalidSignature: "The signature is not valid."
            case .missingRequiredProperties: "The signed data is missing required properties."
            }
        }

        /// Why it went wrong.
        public var failureReason: String? {
            switch self {
            case .revokedCertificate, .invalidCertificateChain: "The chain does not lead to the store's root certificate."
            case .invalidDeviceVerification: "Its deviceVerification does not match this device's deviceVerificationID."
            case .invalidEncoding: "The JWS or its payload could not be decoded."
            case .invalidSignature: "The signature does not match the signed data, or the data was changed."
            case .missingRequiredProperties: "A field the payload must have is absent."
            }
        }

        /// What the app can do about it.
        public var recoverySuggestion: String? { "Do not deliver content for it." }
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

extension VerificationResult {
    /// The JWS header, decoded from base64url: JSON with `alg`, `x5c` (StoreKit's `headerData`).
    public var headerData: Data { jwsPart(jwsRepresentation, 0) }
    /// The JWS payload, decoded from base64url: the signed JSON (StoreKit's `payloadData`).
    public var payloadData: Data { jwsPart(jwsRepresentation, 1) }
    /// The bytes the signature covers: the header and payload as the JWS writes them, joined by a
    /// dot (StoreKit's `signedData`).
    public var signedData: Data {
        let parts = jwsRepresentation.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return Data() }
        return Data("\(parts[0]).\(parts[1])".utf8)
    }
    /// The JWS signature's bytes (ES256: r and s, 64 bytes). StoreKit's `signature` is a CryptoKit
    /// `P256.Signature`, which Linux does not have: these are its `rawRepresentation`.
    public var signatureData: Data { jwsPart(jwsRepresentation, 2) }
    /// When the App Store signed the value (the payload's `signedDate`); the distant past when it has none.
    public var signedDate: Date { jwsSignedDate(jwsRepresentation) ?? .distantPast }
    /// The signed value's device verification hash (see `Transaction.deviceVerification`).
    public var deviceVerification: Data { (unsafePayloadValue as? any SignedByStore)?.deviceVerification ?? Data() }
    /// The nonce of the device verification hash.
    public var deviceVerificationNonce: UUID {
        (unsafePayloadValue as? any SignedByStore)?.deviceVerificationNonce ?? DeviceVerification.nonce(for: jwsRepresentation)
    }
}

/// A value that carries the JWS it came from, and its device verification.
protocol SignedByStore {
    var jws: String { get }
    var deviceVerification: Data { get }
    var deviceVerificationNonce: UUID { get }
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
func jwsPayload(_ jws: String?) -> Data { jwsPart(jws, 1) }

/// Part `index` of a compact JWS (0 header, 1 payload, 2 signature), decoded; empty when it cannot be.
func jwsPart(_ jws: String?, _ index: Int) -> Data {
    guard let jws else { return Data() }
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return Data() }
    var base64 = parts[index].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64) ?? Data()
}

/// The `signedDate` (ms since 1970) of a compact JWS's payload; nil when it has none.
func jwsSignedDate(_ jws: String?) -> Date? {
    let payload = (try? JSONSerialization.jsonObject(with: jwsPayload(jws))) as? [String: Any]
    guard let ms = payload?["signedDate"] as? NSNumber else { return nil }
    return Date(timeIntervalSince1970: ms.doubleValue / 1000)
}
