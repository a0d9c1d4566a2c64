import Foundation
import Testing
@testable import StoreEngine

@Suite("refund requests from the app")
struct RefundRequestTests {
    /// The payload of the newest notification, decoded.
    func newestNotification(_ store: Store) async throws -> (type: String, data: JSON) {
        let note = try #require(try await store.appStore.notifications().last)
        let payload = try await store.app.verify(jws: note.signedPayload).payload
        return (note.type, try #require(payload["data"]))
    }

    @Test("a request waits for the App Store; a consumable's brings CONSUMPTION_REQUEST with the reason; approved, REFUND")
    func consumableApproved() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let coins = try await buy(store, "coins", quantity: 3)
            try await store.app.finish(coins)
            let request = try await store.app.beginRefundRequest(transactionID: coins.id, reason: .unintendedPurchase)
            #expect(request.status == .pending && request.reason == .unintendedPurchase && request.requestDate == fixture.clock.now)
            #expect(try await store.app.transaction(id: coins.id).revocationDate == nil, "nothing is refunded yet")
            let (type, data) = try await newestNotification(store)
            #expect(type == "CONSUMPTION_REQUEST")
            #expect(data["consumptionRequestReason"] == .string("UNINTENDED_PURCHASE"))
            #expect(data["signedTransactionInfo"] == .string(try #require(coins.jwsRepresentation)))
            #expect(try await store.appStore.refundRequests(status: .pending).map(\.transactionID) == [coins.id])

            fixture.clock.advance(by: 86_400)
            let decided = try await store.appStore.approveRefundRequest(coins.id)
            #expect(decided.status == .approved && decided.decisionDate == fixture.clock.now)
            let refunded = try await store.app.transaction(id: coins.id)
            #expect(refunded.revocationDate == fixture.clock.now && refunded.revocationReason == .other)
            #expect(try await store.app.balances()["coins"] == 0, "the refunded coins leave the balance")
            #expect(try await store.app.deliverUnfinished().revoked.map(\.id) == [coins.id], "an update for the app")
            #expect(try await newestNotification(store).type == "REFUND")
            await #expect(throws: StoreError.self) { try await store.appStore.approveRefundRequest(coins.id) }
        }
    }

    @Test("declined: REFUND_DECLINED, nothing changes; a second request is duplicateRequest; a non-consumable asks no consumption data")
    func declinedAndDuplicate() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let before = try await store.appStore.notifications().count
            try await store.app.beginRefundRequest(transactionID: pro.id, reason: .unsatisfiedWithPurchase)
            #expect(try await store.appStore.notifications().count == before, "CONSUMPTION_REQUEST is for consumables and auto-renewable subscriptions")
            try await store.appStore.declineRefundRequest(pro.id)
            #expect(try await newestNotification(store).type == "REFUND_DECLINED")
            #expect(try await store.app.transaction(id: pro.id).revocationDate == nil)
            #expect(try await store.app.currentEntitlements().map(\.id) == [pro.id])
            await #expect(throws: RefundRequestError.duplicateRequest(transactionID: pro.id)) {
                try await store.app.beginRefundRequest(transactionID: pro.id)
            }
            await #expect(throws: StoreError.self) { try await store.appStore.declineRefundRequest(pro.id) }
        }
    }

    @Test("refundRequestOutcome approve: refunded at once, developerIssue for a fulfillment issue; a subscription's asks for consumption data")
    func decidedAtOnce() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.refundRequestOutcome, to: .approve)
            let monthly = try await buy(store, "sub.monthly")
            let request = try await store.app.beginRefundRequest(transactionID: monthly.id, reason: .fulfillmentIssue)
            #expect(request.status == .approved)
            #expect(try await store.app.transaction(id: monthly.id).revocationReason == .developerIssue)
            #expect(try await store.app.subscriptionStatuses().map(\.state) == [.revoked])
            let types = try await store.appStore.notifications().map(\.type)
            #expect(types.suffix(2) == ["CONSUMPTION_REQUEST", "REFUND"])
            // The outcome chosen for one request beats the setting.
            let faces = try await buy(store, "faces")
            #expect(try await store.app.beginRefundRequest(transactionID: faces.id, outcome: .decline).status == .declined)
        }
    }

    @Test("failed: another account's transaction, a refunded one, a pending request; offline fails")
    func failures() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open(), other = try fixture.open(account: "other")
            let pro = try await buy(store, "pro")
            await #expect(throws: RefundRequestError.self) { try await other.app.beginRefundRequest(transactionID: pro.id) }
            let faces = try await buy(store, "faces")
            try await store.appStore.refund(faces.id)
            await #expect(throws: RefundRequestError.failed(transactionID: faces.id, reason: "it is refunded already")) {
                try await store.app.beginRefundRequest(transactionID: faces.id)
            }
            try await store.testSession.set(.askToBuy, to: true)
            _ = try await store.purchase("coins")
            let waiting = try #require(try await store.pendingTransactions().first)
            await #expect(throws: RefundRequestError.self) { try await store.app.beginRefundRequest(transactionID: waiting.id) }
            try await store.testSession.set(.offline, to: true)
            await #expect(throws: StoreError.self) { try await store.app.beginRefundRequest(transactionID: pro.id) }
            #expect(try await store.appStore.refundRequests().isEmpty, "no failed call recorded a request")
        }
    }

    @Test("a refund made another way settles the pending request")
    func refundSettlesRequest() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            try await store.app.beginRefundRequest(transactionID: pro.id)
            try await store.appStore.refund(pro.id)
            #expect(try await store.appStore.refundRequests().map(\.status) == [.approved])
        }
    }
}
