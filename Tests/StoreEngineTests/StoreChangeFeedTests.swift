import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
@testable import StoreEngine

/// A subscriber the tests listen with.
private typealias Heard = StreamLog<StoreChange>

/// The store's change feed: inotify and `data_version`, renewals made once, no reads while idle.
@Suite struct StoreChangeFeedTests {
    @Test func anotherConnectionsCommitArrivesOnTheFeed() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let heard = Heard(store.changes.changes())
            let first = try #require(await heard.first { $0.cause == .subscribed })
            #expect(first.value.unfinished.isEmpty)
            // Another connection (as another process would) buys, ten times; each arrives.
            let other = try fixture.open()
            var latencies: [Duration] = []
            var version = first.value.dataVersion
            for _ in 0..<10 {
                let bought = try await buy(other, "coins")
                let committed = ContinuousClock.now
                let arrived = try #require(await heard.first { $0.dataVersion > version && $0.unfinished.contains { $0.id == bought.id } })
                #expect(arrived.value.cause == .written)
                latencies.append(arrived.at - committed)
                version = arrived.value.dataVersion
            }
            let sorted = latencies.sorted()
            print("StoreChangeFeed latency, commit returned → change heard: median \(sorted[sorted.count / 2]), max \(sorted.last!)")
            #expect(sorted.last! < .seconds(5))
        }
    }

    @Test func aDueRenewalIsMadeOnceForThreeSubscribers() async throws {
        try await withTemporaryFolder { folder in
            // Real time at a fast rate: the trial ends ten seconds after the purchase (time enough for
            // the subscribers' first look, even on a loaded machine), and the feed wakes for it by
            // itself (nothing is written then).
            let store = try Store(catalog: try fixtureCatalog(), path: folder + "/store.sqlite")
            try await store.testSession.set(.timeRate, to: .oneRenewalEveryTenSeconds)
            let trial = try await buy(store, "sub.monthly")
            let subscribers = (0..<3).map { _ in Heard(store.changes.changes()) }
            var renewals: [StoreChange] = []
            for subscriber in subscribers {
                let renewal = try #require(await subscriber.first(within: .seconds(40)) { $0.renewalsMade > 0 })
                renewals.append(renewal.value)
            }
            // One look made it, and every subscriber heard that same change.
            #expect(renewals[0].cause == .clock)
            #expect(renewals.allSatisfy { $0 == renewals[0] })
            #expect(renewals[0].unfinished.contains { $0.originalID == trial.id && $0.id != trial.id })
            // Stop the clock's renewals, then count: each renewal made once, and heard once by each.
            try await store.testSession.set(.timeRate, to: .realTime)
            try await Task.sleep(for: .milliseconds(300))
            let made = try await store.appStore.transactions().filter { $0.originalID == trial.id && $0.id != trial.id }
            #expect(made.count >= 1)
            for subscriber in subscribers {
                #expect(subscriber.all.map(\.renewalsMade).reduce(0, +) == made.count)
            }
        }
    }

    @Test func nothingIsReadWhileNothingChanges() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let heard = Heard(store.changes.changes())
            _ = try #require(await heard.first { $0.cause == .subscribed })
            // The follow-up looks after the file was made are over.
            try await Task.sleep(for: StoreChangeFeed.followUps.last! + .milliseconds(300))
            let before = store.changes.reads
            try await Task.sleep(for: .seconds(1))
            #expect(store.changes.reads == before)
            #expect(heard.all.count == 1)
            // And a write is still heard after the quiet.
            _ = try await buy(try fixture.open(), "pro")
            #expect(await heard.first { $0.cause == .written } != nil)
            #expect(store.changes.reads > before)
        }
    }

    @Test(.fileStoreOnly) func theStoreFileReplacedUnderTheFeedIsNoticed() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let heard = Heard(store.changes.changes())
            _ = try #require(await heard.first { $0.cause == .subscribed })
            // Another store file, renamed over this one (as a restore from a backup does).
            let replacement = fixture.folder + "/replacement.sqlite"
            _ = try Store(catalog: fixture.catalog, path: replacement, now: fixture.clock.closure)
            #expect(rename(replacement, fixture.path) == 0)
            #expect(await heard.first { $0.cause == .replaced } != nil)
        }
    }

    @Test func unfinishedIsReadOnlyWhileASubscriberAsksForIt() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let other = try fixture.open()
            // A subscriber that does not read them (serve's sender, the paywall): no look reads them.
            let quiet = Heard(store.changes.changes(includingUnfinished: false))
            let start = try #require(await quiet.first { $0.cause == .subscribed })
            let first = try await buy(other, "coins")
            let arrived = try #require(await quiet.first { $0.dataVersion > start.value.dataVersion })
            #expect(arrived.value.unfinished.isEmpty)
            // One that asks (Transaction.updates): its first value and every look after have them, for both.
            let asking = Heard(store.changes.changes())
            // Its first value, whatever its cause: the look that makes it may write (the new
            // transaction's verified mark) and hand that change out as this subscriber's first.
            let snapshot = try #require(await asking.first { _ in true })
            #expect(snapshot.value.unfinished.map(\.id) == [first.id])
            let second = try await buy(other, "coins")
            let both = try #require(await asking.first { $0.unfinished.contains { $0.id == second.id } })
            #expect(both.value.unfinished.map(\.id) == [first.id, second.id])
            #expect(await quiet.first { $0 == both.value } != nil)
        }
    }

    @Test func refreshMakesWhatTheStepsClockMadeDueAndHandsItToSubscribers() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")
            let heard = Heard(store.changes.changes())
            _ = try #require(await heard.first { $0.cause == .subscribed })
            #expect(await store.changes.refresh() == nil)  // nothing written, nothing due
            fixture.clock.advance(ISODuration(days: 8))
            let change = try #require(await store.changes.refresh())
            #expect(change.renewalsMade == 1)
            #expect(change.unfinished.contains { $0.originalID == trial.id && $0.id != trial.id })
            #expect(await heard.first { $0 == change } != nil)
        }
    }

    @Test func subscribersThatEndStopTheWatchingThread() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            do {
                let heard = Heard(store.changes.changes())
                _ = try #require(await heard.first { $0.cause == .subscribed })
                #expect(store.changes.subscriberCount == 1)
            }
            #expect(await eventually { store.changes.subscriberCount == 0 })
        }
    }
}
