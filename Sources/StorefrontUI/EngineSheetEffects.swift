import Foundation
import StoreEngine

// The engine work of the sheets beside the purchase sheet: signing a promotional offer as the app's
// server would, redeeming an offer code, a refund request, the answer to a price increase.

/// What a purchase passes for its offer: a promotional offer with its signature, or a win-back offer.
struct OfferOptions {
    var offerID: String?
    var signature: PromotionalOfferSignature?
    var winBackOfferID: String?
}

extension EngineEffects {
    /// The purchase options for an offer. A promotional offer is signed with the store's first offer key
    /// that can sign (with the fault the tester chose); without one, why, and the command that makes one.
    func offerOptions(_ offer: PurchaseOffer?, productID: String, _ store: Store) async throws -> Result<OfferOptions, CommandFailure> {
        switch offer {
        case nil:
            return .success(OfferOptions())
        case .winBack(let id)?:
            return .success(OfferOptions(winBackOfferID: id))
        case .promotional(let id, let flaw)?:
            // The engine's signing, as the sheet's prediction (`AppStoreFace.offerRefusal`) signs.
            let signature: PromotionalOfferSignature
            do {
                signature = try await store.appStore.signWithFirstKey(productID: productID, offerID: id, flaw: flaw)
            } catch let error as OfferKeyError {
                return .failure(CommandFailure(error.description))
            }
            return .success(OfferOptions(offerID: id, signature: signature))
        }
    }

    /// Redeems an offer code: what it gave, or StoreKit's error in words.
    func redeem(_ code: String, _ store: Store) async -> Action {
        do {
            let outcome = try await whenBusyRetry { try await store.appStore.redeemOfferCode(code) }
            let (transaction, startsAt): (Transaction?, Date?) = switch outcome {
            case .changeScheduled(let change): (change.current, change.effectiveDate)
            default: (outcome.transaction, nil)
            }
            guard let transaction else { return .sheet(.redeemed(code: code, .failure(CommandFailure("The code \(code) redeemed nothing")))) }
            let offerID: String? = if case .changeScheduled(let change) = outcome { change.offerID ?? transaction.offerID } else { transaction.offerID }
            return .sheet(.redeemed(code: code, .success(Redemption(
                code: code, productID: transaction.productID, offerID: offerID,
                terms: try await codeOfferTerms(offerID, productID: transaction.productID, store),
                transactionID: startsAt == nil ? transaction.id : nil, startsAt: startsAt))))
        } catch let error as StoreError {
            return .sheet(.redeemed(code: code, .failure(CommandFailure("\(error.domain.map { $0 + "." } ?? "")\(error.name): \(error.message)"))))
        } catch {
            return .sheet(.redeemed(code: code, .failure(CommandFailure(describe(error)))))
        }
    }

    /// "3 months free, then $39.99/year": the code offer's terms in the storefront, from the catalog.
    private func codeOfferTerms(_ offerID: String?, productID: String, _ store: Store) async throws -> String? {
        guard let terms = store.catalog.product(id: productID)?.subscription,
              let offer = terms.offers.first(where: { $0.kind == .code && $0.codeOfferID == offerID }),
              let product = try await store.app.product(id: productID) else { return nil }
        let storefront = try await store.app.storefront()
        return StatusText.offerTerms(store.catalog.productOffer(offer, of: terms, in: storefront), product)
    }
}
