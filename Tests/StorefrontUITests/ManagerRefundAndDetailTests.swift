import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// The Transaction Manager asks for a refund's reason, and its detail line says what the
/// subscription is on: price, offer, auto-renew on or off.
@Suite("Transaction Manager: a refund's reason and the detail line")
struct ManagerRefundAndDetailTests {
    @Test("f asks for the reason: ← → choose developerIssue or other, Enter refunds with it, Esc refunds nothing")
    func refundReason() {
        var state = loadedState(on: .transactions)
        send(&state, .manager(.historyLoaded([transaction(swiftShopping, id: 2_000_000_001)])), expecting: [])
        #expect(update(&state, .key(.character("f"))).isEmpty)
        #expect(state.sheet == .refund(id: 2_000_000_001, reason: .other))
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("Reason: ‹ other ›") })
        #expect(update(&state, .key(.right)).isEmpty)
        #expect(state.sheet == .refund(id: 2_000_000_001, reason: .developerIssue))
        #expect(update(&state, .key(.enter)) == [.run(.refund(2_000_000_001, reason: .developerIssue))])
        #expect(state.busy == .working("Refunding 2000000001…"))
        var cancelled = loadedState(on: .transactions)
        send(&cancelled, .manager(.historyLoaded([transaction(swiftShopping, id: 2_000_000_001)])), expecting: [])
        send(&cancelled, .key(.character("f")), expecting: [])
        #expect(update(&cancelled, .key(.escape)).isEmpty)
        #expect(cancelled.sheet == nil && cancelled.busy == nil)
        var refunded = loadedState(on: .transactions)
        send(&refunded, .manager(.historyLoaded([transaction(swiftShopping, id: 2_000_000_001, refunded: true)])), expecting: [])
        #expect(update(&refunded, .key(.character("f"))).isEmpty)
        #expect(refunded.sheet == nil && refunded.flash == "No refund: it is refunded already", "the engine's refusal")
    }

    @Test("the detail line names the price, the offer and whether auto-renew is on")
    func priceOfferAutoRenew() {
        var trial = transaction(monthly, id: 2_000_000_001, expires: fixedDate.addingTimeInterval(7 * 86_400))
        (trial.price, trial.offerType, trial.offerPaymentMode, trial.subscriptionGroupID) = (0, .introductory, .freeTrial, "premium")
        var snap = snapshot()
        var info = renewalInfo(monthly)
        info.willAutoRenew = false
        snap.subscriptions["premium"] = SubscriptionStatus(groupID: "premium", state: .subscribed, transaction: trial, renewalInfo: info)
        var state = loadedState(on: .transactions, snapshot: snap)
        send(&state, .manager(.historyLoaded([trial])), expecting: [])
        let detail = render(state, timeZone: utc).lines[ManagerLayout(state.size).detailRow]
        #expect(detail.contains("tx 2000000001 · $0.00 · introductory offer (freeTrial) · auto-renew off"), "\(detail)")
    }
}
