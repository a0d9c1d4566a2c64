import Foundation

// The limits on what the faces take, written once: every front end (the CLI, the paywall, the
// server, StorefrontKit) meets the same refusal, because the face checks, not the front end.

/// An input a face refuses, with Apple's limit it breaks.
public enum InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A renewal-date extension of other than 1–90 days (`extendByDays`).
    case invalidExtendByDays(Int)
    /// An extension reason other than 0–3 (`extendReasonCode`).
    case invalidExtendReasonCode(Int)
    /// A request identifier empty or longer than 128 characters (`requestIdentifier`).
    case invalidRequestIdentifier(String)
    /// A transaction id that no transaction can have (ids start at 1).
    case invalidTransactionID(Int64)
    /// A prorated refund's share outside 1–99,999 milliunits (0.001%–99.999%: the whole is a full refund).
    case invalidRefundPercentage(Int)

    public var description: String {
        switch self {
        case .invalidExtendByDays(let days):
            "extendByDays must be \(FaceValidation.extendByDays.lowerBound)–\(FaceValidation.extendByDays.upperBound) days, not \(days)"
        case .invalidExtendReasonCode(let code):
            "extendReasonCode must be 0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 (service issue), not \(code)"
        case .invalidRequestIdentifier(let identifier):
            identifier.isEmpty ? "a request identifier is needed" : "a request identifier is at most 128 characters"
        case .invalidTransactionID(let id):
            "\(id) is not a transaction id (ids start at 1)"
        case .invalidRefundPercentage(let milliunits):
            "a prorated refund gives back more than 0% and less than 100% (0.001 to 99.999), not \(RefundShare.percentText(milliunits))%"
        }
    }
}

/// Apple's limits on the faces' inputs.
public enum FaceValidation {
    /// How many days a renewal date may be extended by (Extend a Subscription Renewal Date).
    public static let extendByDays = 1...90
    /// `extendReasonCode`: undeclared, customer satisfaction, other, service issue.
    public static let extendReasonCodes = 0...3
    /// How many of a consumable one purchase may buy (`Product.PurchaseOption.quantity`).
    public static let purchaseQuantities = 1...10
    /// The longest `requestIdentifier`.
    public static let requestIdentifierLength = 128

    /// Checks a renewal-date extension's days and reason code.
    public static func checkExtension(days: Int, reasonCode: Int = 0) throws(InputError) {
        guard extendByDays.contains(days) else { throw .invalidExtendByDays(days) }
        guard extendReasonCodes.contains(reasonCode) else { throw .invalidExtendReasonCode(reasonCode) }
    }

    /// Checks a mass extension's request identifier.
    public static func checkRequestIdentifier(_ identifier: String) throws(InputError) {
        guard !identifier.isEmpty, identifier.count <= requestIdentifierLength else { throw .invalidRequestIdentifier(identifier) }
    }

    /// A prorated refund's share, in milliunits: more than nothing, less than the whole.
    public static let proratedRefundShares = 1...(Transaction.fullRevocation - 1)

    /// Checks a transaction id before it is looked up.
    public static func checkTransactionID(_ id: Int64) throws(InputError) {
        guard id >= 1 else { throw .invalidTransactionID(id) }
    }

    /// Whether a purchase may buy `quantity` of a product of `type`: 1–10 of a consumable, one of anything else.
    public static func isValidQuantity(_ quantity: Int, of type: ProductType) -> Bool {
        purchaseQuantities.contains(quantity) && (quantity == 1 || type == .consumable)
    }
}
