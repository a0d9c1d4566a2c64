import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
@testable import StoreEngine

/// A count behind a lock, for a factory's calls.
private final class Count: Sendable {
    let value = Mutex(0)

    /// The count before this call, then one more.
    func next() -> Int {
        value.withLock { count in
            defer { count += 1 }
            return count
        }
    }
}

/// A test double of the change feed's watcher factory: fails as `inotify_init1` does when the
/// user's `max_user_instances` are all taken (EMFILE) the first `failures` times, then makes what
/// `then` makes (the real inotify watcher, or another double).
private final class ExhaustedInotifyFactoryDouble: Sendable {
    private let count = Count()
    let factory: StoreFileWatcherFactory
    /// How many watchers the feed asked for.
    var calls: Int { count.value.withLock { $0 } }

    init(failures: Int, then: StoreFileWatcherFactory = .inotify) {
        let count = self.count
        factory = StoreFileWatcherFactory { path in
            let call = count.next()
            return call < failures ? .failure(.init(errno: EMFILE)) : then.make(path)
        }
    }
}

/// A test double of a watcher that loses its watch, as inotify's does when the store's folder is
/// moved away and is not back when it is watched again: readable once (the folder's event), then
/// deaf for good; it never reports a write.
private final class LosingWatcherDouble: StoreFileWatcher, @unchecked Sendable {
    // The pipe's ends never change; `lost` is behind its lock.
    private let ends: (read: Int32, write: Int32)
    private let lost = Mutex<Int32?>(nil)

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        ends = (fds[0], fds[1])
    }

    deinit {
        close(ends.read)
        close(ends.write)
    }

    var descriptor: Int32 { ends.read }
    var lostBecause: Int32? { lost.withLock { $0 } }

    /// The folder went: the feed's thread wakes and drains, and the watch is gone.
    func loseWatch() {
        var one: UInt8 = 1
        _ = write(ends.write, &one, 1)
    }

    func drain() -> (written: Bool, replaced: Bool) {
        var byte: UInt8 = 0
        while read(ends.read, &byte, 1) > 0 { lost.withLock { $0 = ENOENT } }
        return (false, false)
    }
}

/// A subscriber the tests listen with.
private typealias Subscriber = StreamLog<StoreChange>

/// The change feed where inotify cannot be had (the user's instances all taken, a watch lost):
/// it polls `data_version` and hears every commit, and watches again when it can.
@Suite(.fileStoreOnly) struct StoreChangeFeedFallbackTests {
    @Test func withoutInotifyTheFeedPollsAndHearsAnotherConnectionsCommit() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let double = ExhaustedInotifyFactoryDouble(failures: .max)
            let feed = StoreChangeFeed(store: store, path: fixture.path, watchers: double.factory)
            #expect(feed.hearing == .notStarted)
            let subscriber = Subscriber(feed.changes())
            let first = try #require(await subscriber.first { $0.cause == .subscribed }?.value)
            #expect(feed.hearing == .polling(errno: EMFILE))
            // Another connection (as another process would) buys: heard without inotify.
            let bought = try await buy(try fixture.open(), "coins")
            let heard = await subscriber.first { $0.dataVersion > first.dataVersion && $0.unfinished.contains { $0.id == bought.id } }?.value
            #expect(heard?.cause == .written)
            // It goes on trying inotify while it polls, every two seconds, not once and never again.
            #expect(await eventually { double.calls >= 3 })
            #expect(feed.hearing == .polling(errno: EMFILE))
        }
    }

    @Test func whenInstancesAreFreeAgainTheFeedWatchesWithInotifyAgain() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let double = ExhaustedInotifyFactoryDouble(failures: 1)
            let feed = StoreChangeFeed(store: store, path: fixture.path, watchers: double.factory)
            let subscriber = Subscriber(feed.changes())
            let first = try #require(await subscriber.first { $0.cause == .subscribed }?.value)
            #expect(await eventually { feed.hearing == .inotify })
            // Watching again, it reads nothing while nothing is written (polling reads 4 times a second).
            try await Task.sleep(for: .milliseconds(500))  // the look of the round that made the watch
            let reads = feed.reads
            try await Task.sleep(for: .milliseconds(1500))
            #expect(feed.reads == reads)
            let bought = try await buy(try fixture.open(), "coins")
            let heard = await subscriber.first { $0.dataVersion > first.dataVersion && $0.unfinished.contains { $0.id == bought.id } }?.value
            #expect(heard?.cause == .written)
        }
    }

    @Test func aWatchLostLaterFallsBackToPollingNotSilence() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let losing = LosingWatcherDouble()
            // The first watcher loses its watch; inotify cannot be had after that.
            let calls = Count()
            let factory = StoreFileWatcherFactory { _ in
                calls.next() == 0 ? .success(losing) : .failure(.init(errno: EMFILE))
            }
            let feed = StoreChangeFeed(store: store, path: fixture.path, watchers: factory)
            let subscriber = Subscriber(feed.changes())
            let first = try #require(await subscriber.first { $0.cause == .subscribed }?.value)
            #expect(feed.hearing == .inotify)
            losing.loseWatch()
            #expect(await eventually { feed.hearing != .inotify })
            let bought = try await buy(try fixture.open(), "coins")
            let heard = await subscriber.first { $0.dataVersion > first.dataVersion && $0.unfinished.contains { $0.id == bought.id } }?.value
            #expect(heard?.cause == .written)
            #expect(feed.hearing == .polling(errno: EMFILE))
        }
    }
}
