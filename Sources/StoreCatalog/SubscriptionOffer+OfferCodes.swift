import Foundation

extension SubscriptionOffer {
    /// The offer identifier a redeemed code records (`offerIdentifier`): Apple names an offer
    /// code's transactions by the offer's reference name; the id when it has none.
    public var codeOfferID: String? { referenceName ?? id }

    /// The codes that redeem this offer code offer: its one-time and custom codes; with none
    /// listed (as Xcode's `codeOffers`), its id and reference name. Empty for other offers.
    package var redemptionCodes: [String] {
        guard kind == .code else { return [] }
        let listed = (codes?.oneTimeCodes ?? []) + (codes?.customCodes ?? [])
        return listed.isEmpty ? [id, referenceName].compactMap { $0 } : listed
    }

    /// Whether `code` redeems this offer code offer (case-insensitive): one of ``redemptionCodes``.
    package func redeems(_ code: String) -> Bool {
        let wanted = code.uppercased()
        return redemptionCodes.contains { $0.uppercased() == wanted }
    }

    /// Whether `code` is one of its one-time codes.
    package func isOneTime(_ code: String) -> Bool {
        (codes?.oneTimeCodes ?? []).contains { $0.uppercased() == code.uppercased() }
    }
}
