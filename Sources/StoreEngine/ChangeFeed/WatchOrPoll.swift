import Glibc
import Synchronization

// Where inotify cannot be had: the change feed polls, and watches again when it can.
//
// inotify instances are counted per user (`fs.inotify.max_user_instances`, 128 on many systems)
// and watches too (`max_user_watches`): a test run, an editor and a few dozen stores can take them
// all. Then `inotify_init1` fails (EMFILE, ENFILE, ENOMEM) or `inotify_add_watch` does (ENOSPC),
// and a watch can be lost later (its folder moved away and not back when it is watched again).
// A feed that waited on such a watcher would hear nothing: instead it reads `data_version` every
// ``StoreChangeFeed/fallbackInterval`` and tries inotify again every ``StoreChangeFeed/watchRetryInterval``.

/// What the change feed waits on to hear its store file written: inotify on the file's folder
/// (``FolderWatch``), or a unit test's double.
protocol StoreFileWatcher: AnyObject {
    /// Polls readable when events wait.
    var descriptor: Int32 { get }
    /// Reads the events waiting: whether they wrote the file or its log, whether they replaced the file.
    func drain() -> (written: Bool, replaced: Bool)
    /// Nil while it watches; the errno once its watch is gone (the folder could not be watched again).
    var lostBecause: Int32? { get }
}

/// Makes the feed's watcher for a store file's path, or says why it cannot (the errno).
struct StoreFileWatcherFactory: Sendable {
    /// Why a watcher could not be made: the errno of `inotify_init1` or `inotify_add_watch`.
    struct Unavailable: Error, Equatable {
        var errno: Int32
    }

    let make: @Sendable (_ path: String) -> Result<any StoreFileWatcher, Unavailable>

    /// inotify on the store file's folder.
    static let inotify = StoreFileWatcherFactory { path in
        if let watch = FolderWatch(path: path) { return .success(watch) }
        return .failure(Unavailable(errno: Glibc.errno))
    }

    /// The store's own signal: inotify for a file, `LISTEN` for a store in PostgreSQL.
    static let standard = StoreFileWatcherFactory { location in
        guard case .postgreSQL(let uri) = StoreAddress(location) else { return inotify.make(location) }
        guard let listener = try? PostgreSQLStoreListener(uri) else { return .failure(Unavailable(errno: ECONNREFUSED)) }
        return .success(ListenWatch(listener))
    }
}

/// `LISTEN` on a store in PostgreSQL, as the feed's watcher: every write's `NOTIFY` makes its
/// socket readable. A lost connection is a lost watch: the feed polls the store's version and
/// makes a new listener (``StoreChangeFeed/watchRetryInterval``), so no write is missed meanwhile.
final class ListenWatch: StoreFileWatcher {
    private let listener: PostgreSQLStoreListener

    init(_ listener: PostgreSQLStoreListener) { self.listener = listener }

    var descriptor: Int32 { listener.descriptor }
    func drain() -> (written: Bool, replaced: Bool) { (listener.drain(), false) }
    var lostBecause: Int32? { listener.isLost ? ECONNRESET : nil }
}

extension StoreChangeFeed {
    /// How the feed hears its store file written.
    package enum Hearing: Sendable, Equatable {
        /// No subscriber has started the feed's thread yet.
        case notStarted
        /// Through inotify.
        case inotify
        /// By reading `data_version` every ``StoreChangeFeed/fallbackInterval``: inotify could not be had
        /// (the errno), and is tried again every ``StoreChangeFeed/watchRetryInterval``.
        case polling(errno: Int32)
    }

    /// While polling, how often the feed tries to watch with inotify again.
    static let watchRetryInterval: Duration = .seconds(2)

    /// How the feed hears its store file written now.
    package var hearing: Hearing { watching.hearing.withLock { $0 } }
}

/// The feed's watcher factory, and how the feed hears now (for tests and the stress suite).
final class FeedWatching: Sendable {
    let factory: StoreFileWatcherFactory
    let hearing = Mutex(StoreChangeFeed.Hearing.notStarted)

    init(_ factory: StoreFileWatcherFactory) { self.factory = factory }

    /// The watching thread's watcher for `path`, made now.
    func start(path: String) -> WatchOrPoll { WatchOrPoll(self, path: path) }
}

/// The watching thread's watcher, or none (the feed then polls): made when the thread starts,
/// made again every ``StoreChangeFeed/watchRetryInterval`` while there is none, and dropped when
/// it loses its watch. Used by that one thread only.
final class WatchOrPoll {
    private let watching: FeedWatching
    private let path: String
    private var watcher: (any StoreFileWatcher)?
    /// A watcher made while polling, handed out from the next round: the round in between looks
    /// (as every polling round does) after the watch began, so a write just before it is not missed.
    private var pending: (any StoreFileWatcher)?
    private var nextTry = ContinuousClock.now

    fileprivate init(_ watching: FeedWatching, path: String) {
        self.watching = watching
        self.path = path
        // The thread's first round looks anyway (a first subscriber): its watcher is used at once.
        if case .success(let made) = make() {
            watcher = made
            note(.inotify)
        }
    }

    /// The watcher to wait on this round; nil: poll this round.
    func current() -> (any StoreFileWatcher)? {
        if let lost = watcher?.lostBecause {
            watcher = nil
            note(.polling(errno: lost))
            nextTry = .now
        }
        guard watcher == nil else { return watcher }
        if let pending {
            watcher = pending
            self.pending = nil
            note(.inotify)
        } else if ContinuousClock.now >= nextTry, case .success(let made) = make() {
            pending = made
        }
        return watcher
    }

    private func make() -> Result<any StoreFileWatcher, StoreFileWatcherFactory.Unavailable> {
        let made = watching.factory.make(path)
        switch made {
        case .success: break
        case .failure(let why):
            note(.polling(errno: why.errno))
            nextTry = .now + StoreChangeFeed.watchRetryInterval
        }
        return made
    }

    private func note(_ hearing: StoreChangeFeed.Hearing) { watching.hearing.withLock { $0 = hearing } }
}
