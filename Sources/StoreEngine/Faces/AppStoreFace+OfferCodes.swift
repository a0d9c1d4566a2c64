import Foundation

extension AppStoreFace {
    /// Redeems an offer code for this account, as the App Store's redeem sheet does: the
    /// transaction reaches the app as an update.
    public func redeemOfferCode(_ code: String) async throws -> PurchaseOutcome { try await store.redeemOfferCode(code) }

    /// ``redeemOfferCode(_:)``, reported: the product and offer the code gave, and its terms.
    public func redeemOfferCodeReporting(_ code: String) async throws -> ActionOutcome {
        let outcome = try await redeemOfferCode(code)
        // A subscriber's code waits for the renewal: it names the plan and offer the renewal takes.
        let (productID, offerID): (String, String?) = switch outcome {
        case .changeScheduled(let change): (change.toProductID, change.offerID ?? change.current.offerID)
        case .pending(let request): (request.productID, nil)
        default: (outcome.transaction?.productID ?? "", outcome.transaction?.offerID)
        }
        return .redeemed(code: code, outcome, product: try await store.productName(productID), offer: offerID,
                         terms: try await store.codeOfferTerms(offerID, productID: productID))
    }
}
