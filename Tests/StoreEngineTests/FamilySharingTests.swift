import Foundation
import Testing
@testable import StoreEngine

/// A catalog whose "pro" and premium subscriptions are family-shareable; "faces" is not.
let familyCatalogText = """
    {
      "storefront": "USA",
      "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
      "subscriptionGroups": [
        { "id": "premium", "displayName": "Premium", "subscriptions": [
            { "id": "sub.monthly", "displayName": "Monthly", "price": "4.99", "period": "P1M", "level": 2, "familyShareable": true },
            { "id": "sub.yearly", "displayName": "Yearly", "price": "39.99", "period": "P1Y", "level": 1, "familyShareable": true } ] }
      ],
      "products": [
        { "id": "pro", "type": "nonConsumable", "displayName": "Pro", "price": "0.99", "familyShareable": true },
        { "id": "faces", "type": "nonConsumable", "displayName": "Faces", "price": "1.99" },
        { "id": "coins", "type": "consumable", "displayName": "Coins", "price": "0.99" }
      ]
    }
    """

/// A store file with the family catalog; `open(account)` is that account's store.
func withFamilyFixture<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withTemporaryFolder { folder in
        let catalog = try Catalog.parse(Array(familyCatalogText.utf8), file: "family.json")
        return try await body(StoreFixture(folder: folder, path: folder + "/store.sqlite", catalog: catalog,
                                           clock: TestClock(fixtureStart)))
    }
}

/// The (type, account, transaction) of each notification recorded after `after`, in order.
func notified(_ store: Store, after: Int64 = 0) async throws -> [String] {
    try await store.appStore.notifications(after: after).map { note in
        [note.type, note.subtype].compactMap { $0 }.joined(separator: " ") + " \(note.account) \(note.transactionID.map(String.init) ?? "-")"
    }
}

@Suite("Family Sharing")
struct FamilySharingTests {
    @Test("a shareable purchase reaches every other member as its own familyShared transaction, an update signed for it")
    func sharedPurchase() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            let family = try await alice.testSession.createFamily("smiths")
            #expect(family.organizer == "alice" && family.members == ["alice"])
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            try await alice.testSession.addFamilyMember("carol", to: "smiths")
            let bought = try await buy(alice, "pro")
            _ = try await buy(alice, "faces")

            let waiting = try await bob.app.unfinished()
            #expect(waiting.map(\.productID) == ["pro"], "faces is not family-shareable")
            let shared = try #require(waiting.first)
            #expect(shared.ownershipType == .familyShared && shared.account == "bob")
            #expect(shared.id != bought.id && shared.originalID == shared.id, "its own id, and its own original")
            #expect(shared.purchaseDate == bought.purchaseDate && shared.originalPurchaseDate == bought.purchaseDate)
            #expect(shared.verification == .verified)
            let payload = try await bob.app.verify(jws: try #require(shared.jwsRepresentation)).payload
            #expect(payload["inAppOwnershipType"] == .string("FAMILY_SHARED"))
            #expect(payload["sandboxAccount"] == .string("bob"))
            #expect(payload["appTransactionId"] == .string(AppTransactionID.make(account: "bob", bundleID: fixture.catalog.bundleID)))
            #expect(try await alice.app.verify(jws: try #require(bought.jwsRepresentation)).payload["inAppOwnershipType"]
                    == .string("PURCHASED"))

            // The member's app gets it as an update, and is entitled; the purchaser's own is untouched.
            #expect(try await bob.app.deliverUnfinished().finished.map(\.id) == [shared.id])
            #expect(try await bob.app.currentEntitlements().map(\.id) == [shared.id])
            #expect(try await bob.app.ownedProducts()["pro"]?.id == shared.id)
            #expect(try await fixture.open(account: "carol").app.currentEntitlements().map(\.productID) == ["pro"])
            #expect(try await alice.app.currentEntitlements().allSatisfy { $0.ownershipType == .purchased })
            // Apple's ONE_TIME_CHARGE reaches each member about its own transaction.
            let notes = try await notified(alice)
            #expect(notes.filter { $0.hasPrefix("ONE_TIME_CHARGE") }.count == 4, "\(notes)")
            #expect(notes.contains("ONE_TIME_CHARGE bob \(shared.id)"))
        }
    }

    @Test("the purchaser's refund revokes each share with the purchaser's revocationReason; REVOKE for the members")
    func refundRevokesShares() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            try await alice.testSession.createFamily("smiths")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            let bought = try await buy(alice, "pro")
            let shared = try #require(try await bob.app.deliverUnfinished().finished.first)
            await #expect(throws: RefundRequestError.self, "only the purchaser asks for a refund") {
                try await bob.app.beginRefundRequest(transactionID: shared.id)
            }
            let before = try await alice.appStore.notifications().last?.id ?? 0
            fixture.clock.advance(by: 3600)

            try await alice.appStore.refund(bought.id, reason: .developerIssue)
            let revoked = try await bob.app.transaction(id: shared.id)
            #expect(revoked.revocationDate == fixture.clock.now)
            #expect(revoked.revocationReason == .developerIssue, "a purchaser's refund: the purchaser's reason")
            #expect(!revoked.isFinished, "handed back to the member's app as an update")
            let delivery = try await bob.app.deliverUnfinished()
            #expect(delivery.revoked.map(\.id) == [shared.id])
            #expect(try await bob.app.currentEntitlements().isEmpty)
            #expect(try await bob.app.ownedProducts().isEmpty)
            #expect(try await notified(alice, after: before) == ["REFUND alice \(bought.id)", "REVOKE bob \(shared.id)"])
            // A member cannot be refunded what it did not pay for.
            await #expect(throws: StoreError.self) { try await bob.appStore.refund(shared.id) }
        }
    }

    @Test("a member who leaves loses what the family shared, and the family what it shared: reason other, REVOKE")
    func leaving() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            try await alice.testSession.createFamily("smiths")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            _ = try await buy(alice, "pro")
            _ = try await buy(bob, "sub.monthly")
            #expect(Set(try await bob.app.currentEntitlements().map(\.productID)) == ["pro", "sub.monthly"])
            #expect(try await alice.app.subscriptionStatuses().map(\.state) == [.subscribed], "shared with alice")
            let before = try await alice.appStore.notifications().last?.id ?? 0

            let change = try await alice.testSession.removeFamilyMember("bob", from: "smiths")
            #expect(change.family?.members == ["alice"])
            #expect(Set(change.revoked.map(\.account)) == ["alice", "bob"])
            #expect(change.revoked.allSatisfy { $0.revocationReason == .other && $0.ownershipType == .familyShared })
            #expect(try await bob.app.currentEntitlements().map(\.productID) == ["sub.monthly"], "its own purchase stays")
            #expect(try await alice.app.currentEntitlements().map(\.productID) == ["pro"])
            #expect(try await alice.app.subscriptionStatuses().map(\.state) == [.revoked])
            #expect(try await bob.app.subscriptionStatuses().map(\.state) == [.subscribed])
            #expect(try await notified(alice, after: before).map { String($0.prefix(6)) } == ["REVOKE", "REVOKE"])
            // Bob renews on his own; alice gets nothing of it any more.
            fixture.clock.advance(ISODuration(months: 1, days: 1))
            _ = try await bob.appStore.processRenewals()
            #expect(try await alice.app.transactions().filter { $0.ownershipType == .familyShared && $0.revocationDate == nil }.isEmpty)
            #expect(try await bob.app.transactions().first?.reason == .renewal)
        }
    }

    @Test("joining: the new member gets the family's active shareable purchases, and the family the member's")
    func joining() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            _ = try await buy(alice, "pro")
            _ = try await buy(alice, "faces")
            let yearly = try await buy(bob, "sub.yearly")
            try await alice.testSession.createFamily("smiths")
            let before = try await alice.appStore.notifications().last?.id ?? 0
            let change = try await alice.testSession.addFamilyMember("bob", to: "smiths")
            #expect(Set(change.shared.map { "\($0.account) \($0.productID)" }) == ["bob pro", "alice sub.yearly"])
            let aliceYearly = try #require(change.shared.first { $0.account == "alice" })
            #expect(aliceYearly.expirationDate == yearly.expirationDate)
            #expect(try await notified(alice, after: before).sorted()
                    == ["ONE_TIME_CHARGE bob \(change.shared.first { $0.account == "bob" }!.id)",
                        "SUBSCRIBED INITIAL_BUY alice \(aliceYearly.id)"])
            let status = try #require(try await alice.app.subscriptionStatuses().first)
            #expect(status.renewalInfo.originalTransactionID == aliceYearly.originalID)
            #expect(status.transaction.ownershipType == .familyShared)
            // A member's intro eligibility is its own: a share is not its purchase.
            #expect(try await alice.app.isEligibleForIntroOffer(groupID: "premium"))
        }
    }

    @Test("a shared subscription renews, is upgraded and expires with its purchaser's; expiry revokes nothing")
    func sharedSubscription() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            try await alice.testSession.createFamily("smiths")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            let monthly = try await buy(alice, "sub.monthly")
            let first = try #require(try await bob.app.deliverUnfinished().finished.first)
            #expect(first.expirationDate == monthly.expirationDate && first.originalID == first.id)

            fixture.clock.advance(ISODuration(months: 1, days: 1))
            // The member's own calls make the purchaser's renewal due (its family's).
            let renewed = try #require(try await bob.app.deliverUnfinished().finished.first)
            #expect(renewed.reason == .renewal && renewed.originalID == first.originalID && renewed.id != first.id)
            let aliceRenewal = try #require(try await alice.app.transactions().first)
            #expect(renewed.expirationDate == aliceRenewal.expirationDate && renewed.purchaseDate == aliceRenewal.purchaseDate)

            _ = try await buy(alice, "sub.yearly")  // an upgrade, at once
            let upgraded = try await bob.app.transaction(id: renewed.id)
            #expect(upgraded.isUpgraded, "the member's share of the replaced plan is upgraded too")
            let yearly = try #require(try await bob.app.unfinished().first)
            #expect(yearly.productID == "sub.yearly" && yearly.originalID == first.originalID)

            try await alice.appStore.setAutoRenew(groupID: "premium", false)
            let status = try #require(try await bob.app.subscriptionStatuses().first)
            #expect(status.state == .subscribed && !status.renewalInfo.willAutoRenew)
            #expect(status.renewalInfo.originalTransactionID == first.originalID)
            fixture.clock.advance(ISODuration(years: 1, days: 1))
            #expect(try await bob.app.subscriptionStatuses().map(\.state) == [.expired])
            #expect(try await bob.app.currentEntitlements().isEmpty)
            #expect(try await bob.app.transaction(id: yearly.id).revocationDate == nil, "an expiry is not a revocation")
            let notes = try await notified(alice)
            #expect(notes.contains("EXPIRED VOLUNTARY bob \(yearly.id)"), "\(notes)")
            #expect(notes.contains("DID_RENEW bob \(renewed.id)"))
            #expect(notes.contains("DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED bob \(yearly.id)"))
        }
    }

    @Test("one family at a time, six at most, the organizer leaves last; errors name the family and account")
    func rules() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice")
            let session = alice.testSession
            try await session.createFamily("smiths")
            await #expect(throws: FamilyError(description: "there is a family smiths already")) {
                try await session.createFamily("smiths", organizer: "zoe")
            }
            await #expect(throws: FamilyError.self) { try await session.createFamily("joneses") }  // alice is a Smith
            for name in ["b", "c", "d", "e", "f"] { try await session.addFamilyMember(name, to: "smiths") }
            await #expect(throws: FamilyError(description: "the family smiths is full: the organizer and up to five members, as Apple's")) {
                try await session.addFamilyMember("g", to: "smiths")
            }
            try await session.createFamily("joneses", organizer: "g")
            await #expect(throws: FamilyError.self) { try await session.addFamilyMember("b", to: "joneses") }
            await #expect(throws: FamilyError(description: "there is no family nobody")) {
                try await session.addFamilyMember("h", to: "nobody")
            }
            await #expect(throws: FamilyError.self) { try await session.removeFamilyMember("alice", from: "smiths") }
            await #expect(throws: FamilyError(description: "g is not in the family smiths")) {
                try await session.removeFamilyMember("g", from: "smiths")
            }
            try await session.removeFamilyMember("g", from: "joneses")  // the organizer alone: the family ends
            #expect(try await session.families().map(\.name) == ["smiths"])
            #expect(try await session.family(of: "c")?.members == ["alice", "b", "c", "d", "e", "f"])
        }
    }

    @Test("a schema 7 file gets schema 8's tables on opening; its rows keep their seals")
    func migratesSevenToEight() async throws {
        try await withFamilyFixture { fixture in
            let kept = try await buy(try fixture.open(), "pro")
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            try db.execute("""
                DROP TABLE families; DROP TABLE family_members; DROP TABLE family_shares; DROP TABLE refund_requests;
                ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal;
                PRAGMA user_version = 7;
                """)
            let reopened = try fixture.open(account: "alice")
            #expect(try db.scalar("PRAGMA user_version") == Ledger.schemaVersion)
            try await reopened.testSession.createFamily("after")
            #expect(try await reopened.testSession.families().map(\.name) == ["after"])
            #expect(try await fixture.open().app.transaction(id: kept.id).verification == .verified)
            #expect(try await reopened.appStore.refundRequests().isEmpty)
        }
    }
}

@Suite("Family Sharing: renewal-date extensions")
struct FamilyExtensionNotificationTests {
    @Test("extending the purchaser's subscription, alone or by a mass extension, reaches each member as RENEWAL_EXTENDED about their share")
    func membersHearOfExtensions() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice")
            _ = try await alice.testSession.createFamily("smiths")
            let bought = try await buy(alice, "sub.monthly")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")  // shared after the purchase
            fixture.clock.advance(by: 35 * 86_400)
            _ = try await alice.appStore.processRenewals()
            let share = try #require(try await fixture.open(account: "bob").app.transactions().first { $0.productID == "sub.monthly" })
            var before = try await alice.appStore.notifications().last?.id ?? 0
            _ = try await alice.appStore.extendSubscription(originalTransactionID: bought.id, days: 3)
            let single = try await notified(alice, after: before)
            #expect(single.count == 2 && single.allSatisfy { $0.hasPrefix("RENEWAL_EXTENDED") }, "\(single)")
            #expect(single.contains { $0.hasPrefix("RENEWAL_EXTENDED bob ") }, "\(single)")
            before = try await alice.appStore.notifications().last?.id ?? 0
            _ = try await alice.appStore.extendAllSubscribers(productID: "sub.monthly", days: 2, requestIdentifier: "everyone")
            let mass = try await notified(alice, after: before)
            #expect(mass.filter { $0.hasPrefix("RENEWAL_EXTENDED bob ") }.count == 1 && mass.last?.hasPrefix("RENEWAL_EXTENSION SUMMARY") == true,
                    "\(mass)")
            let extended = try #require(try await fixture.open(account: "bob").app.transactions().first { $0.originalID == share.originalID })
            #expect(extended.expirationDate == share.expirationDate.map { $0.addingTimeInterval(5 * 86_400) })
        }
    }
}
