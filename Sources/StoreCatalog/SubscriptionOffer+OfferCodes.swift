import Foundation

extension SubscriptionOffer {
    /// The offer identifier a redeemed code records (`offerIdentifier`): Apple names an offer
    /// code's transactions by the offer's reference name; the id when it has none.
    public var codeOfferID: String? { referenceName ?? id }

    /// Whether `code` redeems this offer code offer (case-insensitive): one of its one-time or
    /// custom codes; with no codes listed (as Xcode's `codeOffers`), its id or reference name.
    package func redeems(_ code: String) -> Bool {
        guard kind == .code else { return false }
        let wanted = code.uppercased()
        let listed = (codes?.oneTimeCodes ?? []) + (codes?.customCodes ?? [])
        let accepted = listed.isEmpty ? [id, referenceName].compactMap { $0 } : listed
        return accepted.contains { $0.uppercased() == wanted }
    }

    /// Whether `code` is one of its one-time codes.
    package func isOneTime(_ code: String) -> Bool {
        (codes?.oneTimeCodes ?? []).contains { $0.uppercased() == code.uppercased() }
    }
}
