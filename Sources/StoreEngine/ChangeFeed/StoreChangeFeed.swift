import Dispatch
import Foundation
import Glibc
import Synchronization

/// The one watcher of a store file: what changed, handed to every subscriber as ``StoreChange``s.
///
/// It waits on a thread of its own (never on Swift's shared pool) for inotify to say the store
/// file or its write-ahead log was written or replaced, and for the store's clock to reach the
/// next renewal, billing step or expiry (at the store's time rate). Then it looks, on the store's
/// own queue: `PRAGMA data_version` (other connections' commits) and this connection's change
/// count tell whether anything changed; due renewals are made once; each subscriber gets the
/// change. Nothing is read while nothing is written and nothing falls due.
///
/// A commit is written before it is synced and visible (the WAL index that makes it visible is
/// shared memory, which inotify does not see), so after a write the feed looks a few more times
/// — dense for the first 100 ms, then sparser to 1.6 s, for a slow fsync on a busy disk — each a
/// `data_version` read, then waits again.
///
/// Made by ``Store/changes``; its thread runs while someone subscribes.
public final class StoreChangeFeed: Sendable {
    /// The feed's bookkeeping, behind ``state``.
    struct State {
        weak var store: Store?
        var subscribers: [Int: AsyncStream<StoreChange>.Continuation] = [:]
        /// Subscribers that have not had their first (`.subscribed`) value yet.
        var waitingForFirst: Set<Int> = []
        /// Subscribers that read ``StoreChange/unfinished``: only for them does a look read it.
        var wantingUnfinished: Set<Int> = []
        var nextID = 0
        var threadRunning = false
        /// What the last look saw: other connections' commits, this connection's changes.
        var seen: (dataVersion: Int64, ownChanges: Int64)?
        var sequence = 0
        /// Store times subscribers asked to be woken at (a notification's retry).
        var wakes: [Date] = []
        /// Real time of the next due renewal or asked-for wake; nil: none known.
        var clockWake: ContinuousClock.Instant?
        /// The store file's inode when last looked at, to notice it replaced.
        var inode: UInt64?
        var replaced = false
        /// Whether subscribers were told the store's file is used no more (replaced under it).
        var replacementHeard = false
        var reads = 0
    }

    let state: Mutex<State>
    let path: String
    /// inotify, or polling where it cannot be had (WatchOrPoll.swift).
    let watching: FeedWatching
    /// A pipe that pokes the watching thread (a new subscriber, a wake asked for, a stop): read end, write end.
    private let poke: (read: Int32, write: Int32)

    init(store: Store, path: String, watchers: StoreFileWatcherFactory = .standard) {
        state = Mutex(State(store: store, inode: Self.inode(of: path)))
        self.path = path
        watching = FeedWatching(watchers)
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        poke = (ends[0], ends[1])
    }

    deinit {
        if poke.read >= 0 { close(poke.read) }
        if poke.write >= 0 { close(poke.write) }
    }

    // MARK: - Subscribing

    /// Every change from now on, starting with the store as it is; ends when the store is gone.
    /// Each subscriber gets every change (the newest 64 when it falls behind).
    ///
    /// The first value is `.subscribed`, unless the look that makes it also changed the store
    /// (a renewal fell due, a new transaction's verified mark was written): then it is that
    /// change, handed to every subscriber alike, which carries the store as it is all the same.
    /// - Parameter includingUnfinished: whether this subscriber reads ``StoreChange/unfinished``.
    ///   One that does not (a notification sender, a paywall) spares every look that read of
    ///   each unfinished transaction, while no other subscriber asks for it.
    public func changes(includingUnfinished: Bool = true) -> AsyncStream<StoreChange> {
        AsyncStream(bufferingPolicy: .bufferingNewest(64)) { continuation in
            let (id, start) = state.withLock { state -> (Int, Bool) in
                let id = state.nextID
                state.nextID += 1
                state.subscribers[id] = continuation
                state.waitingForFirst.insert(id)
                if includingUnfinished { state.wantingUnfinished.insert(id) }
                defer { state.threadRunning = true }
                return (id, !state.threadRunning)
            }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { state in
                    state.subscribers[id] = nil
                    state.waitingForFirst.remove(id)
                    state.wantingUnfinished.remove(id)
                }
                self?.wakeThread()
            }
            if start {
                let thread = Thread { [self] in watch() }
                thread.name = "storefront.changes"
                thread.start()
            } else {
                wakeThread()
            }
        }
    }

    /// Looks at the store file now, as the watching thread would, and hands any change to every
    /// subscriber before returning it: for a caller that steps time itself (a scenario's
    /// paywall, a test's clock). Nil when nothing changed and nothing fell due.
    @discardableResult
    public func refresh() async -> StoreChange? {
        guard let store = state.withLock({ $0.store }) else { return nil }
        return try? await store.lookForChanges(self, cause: .written, full: true)
    }

    /// Wakes the feed at `date` on the store's clock (at its time rate), with a `.clock` change:
    /// for work that falls due with time and that the store does not know of (a retry).
    public func wake(atStoreTime date: Date) {
        state.withLock { $0.wakes.append(date) }
        wakeThread()
    }

    /// Asks the feed to look again soon: a write it may not have heard (where there is no inotify).
    public func notice() { wakeThread() }

    /// How many times the feed has read the store file's state (`data_version`): a test's count.
    public var reads: Int { state.withLock { $0.reads } }

    /// How many subscribe now.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    private func wakeThread() {
        guard poke.write >= 0 else { return }
        var one: UInt8 = 1
        _ = write(poke.write, &one, 1)  // a full pipe already has a poke waiting
    }

    // MARK: - Watching

    /// After a write, the feed looks again this long after it (the commit may not be visible yet).
    static let followUps: [Duration] = [.microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                                        .microseconds(1500), .milliseconds(2), .milliseconds(3), .milliseconds(4),
                                        .milliseconds(5), .milliseconds(7), .milliseconds(10), .milliseconds(15),
                                        .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                        // A busy disk's fsync: without these, such a commit waits for the next write.
                                        .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]
    /// Where inotify cannot be had (no inotify, a folder that cannot be watched): a look this often.
    static let fallbackInterval: Duration = .milliseconds(250)

    private func watch() {
        let watchOrPoll = watching.start(path: path)
        let clock = ContinuousClock()
        var lastWrite: ContinuousClock.Instant?
        var followUp = Self.followUps.count
        var cause: StoreChange.Cause = .written
        var failedLooks = 0
        while true {
            let (store, stop) = state.withLock { state -> (Store?, Bool) in
                let stop = state.subscribers.isEmpty || state.store == nil
                if stop { state.threadRunning = false }
                return (state.store, stop)
            }
            guard let store, !stop else {
                if store == nil { finishAll() }
                return
            }
            let watcher = watchOrPoll.current()
            // How long to wait: the next follow-up look after a write, the clock's next due date,
            // a new subscriber's first value (at once), or the fallback timer without inotify.
            var deadline: ContinuousClock.Instant?
            if let lastWrite, followUp < Self.followUps.count { deadline = lastWrite + Self.followUps[followUp] }
            let (clockWake, first) = state.withLock { ($0.clockWake, !$0.waitingForFirst.isEmpty) }
            if let clockWake { deadline = min(deadline ?? clockWake, clockWake) }
            if watcher == nil { deadline = min(deadline ?? clock.now + Self.fallbackInterval, clock.now + Self.fallbackInterval) }
            // To the microsecond: the first follow-ups after a write are 100 and 250 µs, and poll's
            // milliseconds rounded up made each a whole one. The last part of a wait shorter than a
            // millisecond is slept (no spin of zero-length polls); what came meanwhile is read after.
            let left = first ? Duration.zero : deadline.map { max(.zero, $0 - clock.now) }
            if let left, left < .milliseconds(1), left > .zero { Self.sleep(left) }
            let wait = left.map { Int32(min(Int64(Int32.max), $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)) } ?? -1
            var fds = [pollfd(fd: watcher?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: poke.read, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, wait)
            var look = first
            if fds[1].revents & Int16(POLLIN) != 0 {
                var pokes = [UInt8](repeating: 0, count: 64)
                while read(poke.read, &pokes, pokes.count) > 0 {}
                look = look || state.withLock { !$0.waitingForFirst.isEmpty }
            }
            if let watcher, fds[0].revents & Int16(POLLIN) != 0 {
                let touched = watcher.drain()
                if touched.written || touched.replaced {
                    lastWrite = clock.now
                    followUp = 0
                    look = true
                }
                if touched.replaced { state.withLock { $0.replaced = true } }
            }
            if let lastWrite, followUp < Self.followUps.count, clock.now >= lastWrite + Self.followUps[followUp] {
                // Past follow-ups are one look, not one each.
                while followUp < Self.followUps.count, clock.now >= lastWrite + Self.followUps[followUp] { followUp += 1 }
                look = true
            }
            if let clockWake, clock.now >= clockWake {
                state.withLock { $0.clockWake = nil }
                cause = .clock
                look = true
            }
            if watcher == nil { look = true }
            guard look else { continue }
            let made = cause
            cause = .written
            let looked = Self.blocking {
                do { _ = try await store.lookForChanges(self, cause: made) } catch { return false }
                return true
            }
            if looked {
                failedLooks = 0
            } else {
                // The store cannot be read (a PostgreSQL server down): a subscriber still waiting for
                // its first value would have the feed look again at once, in a loop. Wait longer each time.
                failedLooks += 1
                Self.sleep(Self.lookRetry(after: failedLooks))
            }
        }
    }

    /// How long the feed waits after `failures` looks failed in a row: 10 ms, doubling, at most a second.
    static func lookRetry(after failures: Int) -> Duration {
        min(.milliseconds(10) * (1 << min(failures - 1, 7)), .seconds(1))
    }

    /// Ends every subscriber's stream: the store is gone.
    private func finishAll() {
        let all = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }

    private static func sleep(_ duration: Duration) {
        var time = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&time, &left) == -1, errno == EINTR { time = left }
    }

    /// Waits on this (dedicated) thread for async work on the store's queue: the task starts on a
    /// queue of its own and hops to the store's, never waiting for a thread of Swift's shared pool
    /// (which tests and apps may keep busy).
    private static func blocking(_ work: @escaping @Sendable () async -> Bool) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let succeeded = Outcome()
        Task(executorPreference: LookExecutor.shared) {
            succeeded.value.store(await work(), ordering: .relaxed)
            done.signal()
        }
        done.wait()
        return succeeded.value.load(ordering: .relaxed)
    }

    /// Whether the look the feed's thread waited for succeeded.
    private final class Outcome: Sendable {
        let value = Atomic<Bool>(false)
    }

    static func inode(of path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    // MARK: - Handing out

    /// Called on the store's queue by each look, one at a time: the state the look starts from.
    func mark() -> (seen: (dataVersion: Int64, ownChanges: Int64)?, replaced: Bool, first: Bool, unfinished: Bool) {
        state.withLock { state in
            state.reads += 1
            defer { state.replaced = false }
            return (state.seen, state.replaced, !state.waitingForFirst.isEmpty, !state.wantingUnfinished.isEmpty)
        }
    }

    /// Store times asked for with ``wake(atStoreTime:)`` still to come; those past are dropped.
    func askedWakes(after date: Date) -> [Date] {
        state.withLock { state in
            state.wakes.removeAll { $0 <= date }
            return state.wakes
        }
    }

    /// When the feed wakes next for the clock: as it was, or in so many real seconds (nil: never).
    enum Wake {
        case keep
        case after(TimeInterval?)
    }

    /// Records what a look saw, and when to wake next, and hands the change out: to every
    /// subscriber when something changed, else (given a `snapshot`) to those waiting for their first value.
    func deliver(_ change: StoreChange?, snapshot: StoreChange?, seen: (dataVersion: Int64, ownChanges: Int64),
                 wake: Wake) -> StoreChange? {
        let (targets, value) = state.withLock { state -> ([AsyncStream<StoreChange>.Continuation], StoreChange?) in
            state.seen = seen
            state.inode = Self.inode(of: path)
            if case .after(let seconds) = wake {
                state.clockWake = seconds.map { ContinuousClock.now + .microseconds(Int64((max(0, $0) * 1e6).rounded(.up))) }
            }
            if var change {
                state.sequence += 1
                change.sequence = state.sequence
                state.waitingForFirst = []
                return (Array(state.subscribers.values), change)
            }
            guard var first = snapshot else { return ([], nil) }
            first.cause = .subscribed
            first.sequence = state.sequence
            defer { state.waitingForFirst = [] }
            return (state.waitingForFirst.compactMap { state.subscribers[$0] }, first)
        }
        for target in targets { target.yield(value!) }
        return change == nil ? nil : value
    }
}

/// Where the watching thread's looks start: a dispatch queue, not Swift's shared pool.
private enum LookExecutor {
    static let shared = DispatchTaskExecutor(label: "storefront.changes.looks")
}

/// inotify on the store file's folder, for the file and its write-ahead log: a folder watch sees
/// a file created, written, renamed over or deleted, so a replaced file or a WAL made later needs
/// no new watch. A replaced folder is watched again at its path.
final class FolderWatch: StoreFileWatcher {
    let descriptor: Int32
    private let folder: String
    private let names: Set<String>
    private let file: String
    private var watch: Int32
    private(set) var lostBecause: Int32?

    init?(path: String) {
        let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        folder = url.deletingLastPathComponent().path
        file = url.lastPathComponent
        names = [file, file + "-wal"]
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        watch = inotify_add_watch(descriptor, folder, Self.mask)
        guard watch >= 0 else {
            let failure = errno
            close(descriptor)
            errno = failure
            return nil
        }
    }

    deinit { close(descriptor) }

    private static let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Reads the events waiting: whether they wrote the file or its log, and whether they replaced the file.
    func drain() -> (written: Bool, replaced: Bool) {
        var written = false
        var replaced = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (mask, length) = buffer.withUnsafeBytes {
                    ($0.load(fromByteOffset: offset + 4, as: UInt32.self), Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                    // The folder itself went: watch whatever is at its path now.
                    inotify_rm_watch(descriptor, watch)
                    watch = inotify_add_watch(descriptor, folder, Self.mask)
                    if watch < 0 { lostBecause = errno }  // no folder there now: the feed polls (WatchOrPoll)
                    replaced = true
                } else if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    written = true  // events were dropped: one of them may be a write
                } else if names.contains(name) {
                    written = true
                    if name == file, mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE) != 0 { replaced = true }
                }
                offset += header + length
            }
        }
        return (written, replaced)
    }
}
