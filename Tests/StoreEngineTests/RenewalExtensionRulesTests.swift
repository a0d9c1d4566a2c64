import Foundation
import Testing
@testable import StoreEngine

@Suite("App Store face: renewal-date extensions within Apple's limits")
struct RenewalExtensionRulesTests {
    func extend(_ store: Store, _ id: Int64, days: Int = 10) async throws -> RenewalExtension? {
        try await store.appStore.extendSubscription(originalTransactionID: id, days: days, reasonCode: 1)
    }

    @Test("a subscription in its free trial is not extended (SubscriptionExtensionIneligibleError); once paid it is")
    func freeTrial() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")
            #expect(trial.offerType == .introductory && trial.price == 0)
            await #expect(throws: ExtensionError.ineligible) { try await extend(store, trial.id) }
            #expect(try await store.app.transaction(id: trial.id).expirationDate == trial.expirationDate, "nothing moved")
            // After the trial, the paid renewal may be extended.
            fixture.clock.set(ISODuration(days: 1).after(try #require(trial.expirationDate)))
            let extended = try #require(try await extend(store, trial.id))
            let renewal = try #require(try await store.app.transactions().first)
            #expect(renewal.price > 0 && extended.effectiveDate == renewal.expirationDate)
        }
    }

    @Test("at most two extensions within 365 days (SubscriptionMaxExtensionError); a year after the first, another")
    func twoPerYear() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            _ = try #require(try await extend(store, yearly.id, days: 90))
            fixture.clock.advance(by: 30 * 86_400)
            _ = try #require(try await extend(store, yearly.id, days: 5))
            fixture.clock.advance(by: 30 * 86_400)
            await #expect(throws: ExtensionError.maximumReached) { try await extend(store, yearly.id) }
            let end = try #require(try await store.app.transactions().first?.expirationDate)
            #expect(end == ISODuration(days: 95).after(try #require(yearly.expirationDate)), "the third added nothing")
            #expect(try await store.appStore.notifications(NotificationFilter(type: "RENEWAL_EXTENDED")).count == 2)
            // 365 days after the first, one of the two falls out of the window.
            fixture.clock.set(fixtureStart.addingTimeInterval(365 * 86_400 + 1))
            #expect(try await extend(store, yearly.id) != nil)
        }
    }

    @Test("more than 90 days is refused before anything changes")
    func ninetyDays() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            await #expect(throws: InputError.invalidExtendByDays(91)) { try await extend(store, yearly.id, days: 91) }
            #expect(try await store.appStore.notifications(NotificationFilter(type: "RENEWAL_EXTENDED")).isEmpty)
        }
    }

    @Test("a family member's shared subscription: FamilySharedSubscriptionExtensionIneligibleError; the purchaser's extends both")
    func familyMember() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            _ = try await alice.testSession.createFamily("smiths")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            let bought = try await buy(alice, "sub.yearly")
            let shared = try #require(try await bob.app.unfinished().first)
            #expect(shared.ownershipType == .familyShared)
            await #expect(throws: ExtensionError.familyShared) { try await extend(alice, shared.originalID) }
            let extended = try #require(try await extend(alice, bought.id))
            #expect(try await bob.app.transaction(id: shared.id).expirationDate == extended.effectiveDate)
        }
    }

    @Test("the mass extension skips an ineligible subscriber (a free trial, two extensions this year) and counts it failed")
    func massExtensionSkips() async throws {
        try await withStoreFixture { fixture in
            let paying = try fixture.open(account: "paid@local"), maxed = try fixture.open(account: "maxed@local")
            let first = try await buy(paying, "sub.monthly")
            let other = try await buy(maxed, "sub.monthly")
            // A week later their free trials have turned into paid months.
            fixture.clock.set(ISODuration(days: 1).after(try #require(first.expirationDate)))
            _ = try await paying.appStore.processRenewals()
            _ = try #require(try await extend(maxed, other.id, days: 1))
            _ = try #require(try await extend(maxed, other.id, days: 1))
            let trialing = try fixture.open(account: "trial@local")
            let trial = try await buy(trialing, "sub.monthly")
            #expect(trial.offerType == .introductory)
            let ends = try await [paying, maxed, trialing].asyncMap { try #require(try await $0.app.transactions().first?.expirationDate) }
            let result = try await paying.appStore.extendAllSubscribers(productID: "sub.monthly", days: 7, requestIdentifier: UUID().uuidString)
            #expect(result.succeededCount == 1)
            #expect(result.failedCount == 2, "the free trial and the subscriber extended twice this year")
            let after = try await [paying, maxed, trialing].asyncMap { try #require(try await $0.app.transactions().first?.expirationDate) }
            #expect(after == [ISODuration(days: 7).after(ends[0]), ends[1], ends[2]])
            let summary = try #require(try await paying.appStore.notifications(NotificationFilter(type: "RENEWAL_EXTENSION")).last)
            let payload = try await paying.app.verify(jws: summary.signedPayload).payload
            #expect(payload["summary"]?["failedCount"] == .integer(2))
        }
    }
}

extension Array {
    /// Each element's value of `transform`, one after the other.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
