import Foundation

/// How much of a purchase a refund gives back, the tester's choice where Apple's is Apple's
/// decision: signed as `revocationType` (`REFUND_FULL`, `REFUND_PRORATED`) and
/// `revocationPercentage` (milliunits). Full is the default: the refund a customer asks for is
/// of the whole purchase, and Apple's docs name partial refunds as the exception ("based on
/// time remaining" for a subscription, "based on consumption data" for anything else).
public enum RefundShare: Sendable, Hashable {
    /// The whole purchase: `REFUND_FULL`, 100000.
    case full
    /// A share in milliunits (40% is 40000), 1–99,999: `REFUND_PRORATED`.
    case prorated(milliunits: Int)
    /// An auto-renewable subscription's period left at the refund, as Apple bases it: `REFUND_PRORATED`
    /// (`REFUND_FULL` when refunded before the period began; anything else is refunded whole).
    case timeRemaining

    /// The share in milliunits for `transaction` refunded at `date`; throws for a prorated share out of range.
    func milliunits(for transaction: Transaction, at date: Date) throws(InputError) -> Int {
        switch self {
        case .full: return Transaction.fullRevocation
        case .prorated(let milliunits):
            guard FaceValidation.proratedRefundShares.contains(milliunits) else { throw .invalidRefundPercentage(milliunits) }
            return milliunits
        case .timeRemaining:
            return transaction.remainingShare(at: date)
        }
    }

    /// A percentage as a command line takes it (`33.333`, `40`), in milliunits; nil when it is not
    /// a number with at most three decimals.
    public static func milliunits(percent text: String) -> Int? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 3, parts[0].allSatisfy(\.isASCII),
              parts[0].allSatisfy(\.isNumber), let whole = Int(parts[0]) else { return nil }
        var thousandths = 0
        if parts.count == 2 {
            let decimals = parts[1]
            guard (1...3).contains(decimals.count), decimals.allSatisfy(\.isASCII), decimals.allSatisfy(\.isNumber),
                  let value = Int(decimals.padding(toLength: 3, withPad: "0", startingAt: 0)) else { return nil }
            thousandths = value
        }
        return whole * 1000 + thousandths
    }

    /// Milliunits as a percentage: 33333 is `33.333`, 40000 is `40`.
    public static func percentText(_ milliunits: Int) -> String {
        let sign = milliunits < 0 ? "-" : ""
        let (whole, thousandths) = (abs(milliunits) / 1000, abs(milliunits) % 1000)
        guard thousandths != 0 else { return "\(sign)\(whole)" }
        var decimals = String(thousandths)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(sign)\(whole).\(decimals)"
    }
}
