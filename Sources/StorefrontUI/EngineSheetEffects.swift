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
            return .sheet(.redeemed(code: code, .success(try await whenBusyRetry { try await store.appStore.redeemOfferCodeReporting(code) })))
        } catch let error as StoreError {
            return .sheet(.redeemed(code: code, .failure(CommandFailure("\(error.domain.map { $0 + "." } ?? "")\(error.name): \(error.message)"))))
        } catch {
            return .sheet(.redeemed(code: code, .failure(CommandFailure(describe(error)))))
        }
    }
}
