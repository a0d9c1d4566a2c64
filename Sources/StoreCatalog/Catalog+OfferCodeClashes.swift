import Foundation

extension Catalog {
    /// Notes on offer codes that more than one offer answers to, compared without case as codes
    /// are redeemed (`SPRING` on one product and `spring` on another; one code on two products).
    /// App Store Connect names each custom code once in an app, so Apple never has to choose;
    /// a catalog can, and `redeem` then takes the offer whose code has the exact case typed, and
    /// among those the first, in file order, the customer may redeem.
    func offerCodeClashNotes() -> [String] {
        var owners: [String: [(code: String, productID: String, offer: String)]] = [:]
        var order: [String] = []
        for index in products.indices {
            for offer in products[index].codeOffers {
                // One offer answering to a code twice (its id and reference name alike) is no clash.
                var seen: Set<String> = []
                for code in offer.redemptionCodes where seen.insert(code.uppercased()).inserted {
                    let key = code.uppercased()
                    if owners[key] == nil { order.append(key) }
                    owners[key, default: []].append((code, products[index].id, offer.codeOfferID ?? "?"))
                }
            }
        }
        return order.compactMap { key in
            guard let list = owners[key], list.count > 1 else { return nil }
            let named = list.map { "\"\($0.code)\" (\($0.productID), offer \"\($0.offer)\")" }.joined(separator: ", ")
            return "offer code \"\(key)\" is ambiguous: \(list.count) offers answer to it, case aside — \(named). "
                + "App Store Connect names each code once in an app; here redeeming it takes the offer with the exact case typed, "
                + "then the first in file order the customer may redeem"
        }
    }
}
