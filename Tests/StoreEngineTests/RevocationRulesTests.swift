import Foundation
import Testing
@testable import StoreEngine

@Suite("refunds: auto-renew, revocationType and revocationPercentage as Apple sets them")
struct RevocationRulesTests {
    @Test("a refund request for a subscription turns auto-renew off at once: DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED")
    func refundRequestDisablesAutoRenew() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            fixture.clock.advance(by: 86_400)
            let since = fixture.clock.now
            _ = try await store.app.beginRefundRequest(transactionID: yearly.id, reason: .unsatisfiedWithPurchase)
            #expect(try await notificationNames(store, since: since) == ["DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "CONSUMPTION_REQUEST"])
            #expect(try await renewalInfoOfNewest(store, "DID_CHANGE_RENEWAL_STATUS")["autoRenewStatus"] == .integer(0))
            let waiting = try await status(store, "premium")
            #expect(waiting.state == .subscribed, "still subscribed while the App Store decides")
            #expect(waiting.renewalInfo.willAutoRenew == false)
            // Declined: auto-renew stays off, and the period's end does not renew.
            try await store.appStore.declineRefundRequest(yearly.id)
            fixture.clock.set(ISODuration(days: 1).after(try #require(yearly.expirationDate)))
            #expect(try await status(store, "premium").state == .expired)
            #expect(try await store.transactions().count == 1)
        }
    }

    @Test("a refund request for a non-consumable changes no subscription's renewal")
    func otherProductsKeepRenewing() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.yearly")
            let pro = try await buy(store, "pro")
            _ = try await store.app.beginRefundRequest(transactionID: pro.id, reason: .other)
            #expect(try await status(store, "premium").renewalInfo.willAutoRenew)
            #expect(try await !notificationNames(store).contains("DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED"))
        }
    }

    @Test("a refund is REFUND_FULL at 100000 milliunits unless the tester chooses a share: prorated by the time left, or any share of any product")
    func types() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let yearly = try await buy(store, "sub.yearly")
            let refundedPro = try await store.appStore.refund(pro.id)
            #expect(refundedPro.revocationType == .refundFull && refundedPro.revocationPercentage == 100_000)
            var payload = try await store.app.verify(jws: try #require(refundedPro.jwsRepresentation)).payload
            #expect(payload["revocationType"] == .string("REFUND_FULL"))
            #expect(payload["revocationPercentage"] == .integer(100_000))

            // A quarter of the year used: three quarters refunded.
            let end = try #require(yearly.expirationDate)
            fixture.clock.set(yearly.purchaseDate.addingTimeInterval(end.timeIntervalSince(yearly.purchaseDate) / 4))
            let refunded = try await store.appStore.refund(yearly.id, share: .timeRemaining)
            #expect(refunded.revocationType == .refundProrated && refunded.revocationPercentage == 75_000)
            payload = try await store.app.verify(jws: try #require(refunded.jwsRepresentation)).payload
            #expect(payload["revocationType"] == .string("REFUND_PRORATED"))
            #expect(payload["revocationPercentage"] == .integer(75_000))
            #expect(try await store.app.transaction(id: yearly.id).verification == .verified)
            // Not revoked: neither field.
            #expect(try await store.app.verify(jws: try #require(pro.jwsRepresentation)).payload["revocationType"] == nil)
        }
    }

    @Test("the tester's share: a subscription refunded whole by default, a consumable prorated, kept in the store and signed; a share out of range refused")
    func chosenShares() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "sub.monthly")
            let coins = try await buy(store, "coins", quantity: 3)
            fixture.clock.advance(by: 3_600)
            let whole = try await store.appStore.refund(monthly.id)
            #expect(whole.revocationType == .refundFull && whole.revocationPercentage == 100_000, "Apple's most common refund: the whole")
            await #expect(throws: InputError.invalidRefundPercentage(100_000)) {
                try await store.appStore.refund(coins.id, share: .prorated(milliunits: 100_000))
            }
            #expect(try await store.app.transaction(id: coins.id).revocationDate == nil, "nothing refunded")
            let third = try await store.appStore.refund(coins.id, share: .prorated(milliunits: 33_333))
            #expect(third.revocationType == .refundProrated && third.revocationPercentage == 33_333)
            // Read again from the store (another process's view): the share and the signature agree.
            let reread = try await fixture.open().app.transaction(id: coins.id)
            #expect(reread.revocationPercentage == 33_333 && reread.verification == .verified)
            let payload = try await store.app.verify(jws: try #require(reread.jwsRepresentation)).payload
            #expect(payload["revocationType"] == .string("REFUND_PRORATED") && payload["revocationPercentage"] == .integer(33_333))
        }
    }

    @Test("a percentage as the command line takes it, in milliunits, and back")
    func percentText() {
        #expect(RefundShare.milliunits(percent: "33.333") == 33_333)
        #expect(RefundShare.milliunits(percent: "40") == 40_000)
        #expect(RefundShare.milliunits(percent: "0.015") == 15)
        #expect(RefundShare.milliunits(percent: "67.9") == 67_900)
        for bad in ["", "-5", "1.2345", "abc", "1e3", ".5", "5.", "1000", "٣"] { #expect(RefundShare.milliunits(percent: bad) == nil, "\(bad)") }
        #expect(RefundShare.percentText(33_333) == "33.333" && RefundShare.percentText(40_000) == "40" && RefundShare.percentText(15) == "0.015")
    }

    @Test("a family member's revoked share is FAMILY_REVOKE, with no percentage: nothing was refunded to the member")
    func familyRevoke() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            _ = try await alice.testSession.createFamily("smiths")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            let bought = try await buy(alice, "pro")
            let shared = try #require(try await bob.app.unfinished().first)
            _ = try await alice.appStore.refund(bought.id)
            let revoked = try await bob.app.transaction(id: shared.id)
            #expect(revoked.revocationType == .familyRevoke && revoked.revocationPercentage == nil)
            let payload = try await bob.app.verify(jws: try #require(revoked.jwsRepresentation)).payload
            #expect(payload["revocationType"] == .string("FAMILY_REVOKE"))
            #expect(payload["revocationPercentage"] == nil)
            #expect(revoked.verification == .verified)
        }
    }

    @Test("a row revoked before revocationType was signed still verifies")
    func olderRevokedRow() throws {
        var transaction = Transaction(
            id: 7, originalID: 7, productID: "pro", productType: .nonConsumable, purchaseDate: fixtureStart,
            originalPurchaseDate: fixtureStart, expirationDate: nil, revocationDate: fixtureStart.addingTimeInterval(60),
            revocationReason: .other, isUpgraded: false, ownershipType: .purchased, purchasedQuantity: 1, appAccountToken: nil,
            environment: .xcode, storefront: "USA", currency: "USD", price: 1, reason: .purchase, subscriptionGroupID: nil,
            offerType: nil, account: "a", status: .purchased, isFinished: true)
        guard case .object(let members) = transaction.signedPayload(bundleID: "b", signedDate: fixtureStart) else {
            Issue.record("not an object")
            return
        }
        let older = JSON.object(members.filter { !$0.key.hasPrefix("revocationType") && !$0.key.hasPrefix("revocationPercentage") })
        #expect(Ledger.payload(older, signs: transaction, bundleID: "b"))
        // Any other difference is still edited data.
        transaction.price = 2
        #expect(!Ledger.payload(older, signs: transaction, bundleID: "b"))
    }
}
