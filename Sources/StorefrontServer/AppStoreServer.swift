import Dispatch
import Foundation
import StoreEngine
import Synchronization

/// `storefront serve`: the App Store Server API on `listen`, and Server Notifications V2
/// sent to each `notifyURL`, over one store file (any account in it).
public final class AppStoreServer: @unchecked Sendable {
    // Set in start, read after; stop is called once.
    let store: Store
    let api: ServerAPI
    let http: HTTPServer
    let sender: NotificationSender
    let senderLock: SenderLock
    let log: @Sendable (String) -> Void
    /// The tasks that send (and watch the lock while sending), or wait for the lock; behind a
    /// lock, as losing the lock stops one and starts the other while `stop` may run.
    private let tasks = Mutex<Tasks>(Tasks())
    private let sending = Atomic<Bool>(false)

    struct Tasks {
        var delivery: Task<Void, Never>?
        /// While sending: checks each second that the sender lock is still held.
        var watch: Task<Void, Never>?
        /// While another server holds the sender lock: waits for it to be free, then sends.
        var takeover: Task<Void, Never>?
        var stopped = false
    }

    /// - Parameters:
    ///   - log: a line per delivery attempt.
    public init(store: Store, notifyURLs: [String], log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.log = log
        let face = store.appStore
        // Reads on a connection of their own, never behind a write waiting for the lock; the
        // same connection when a second cannot be opened.
        let reads = (try? store.sibling())?.appStore ?? face
        let api = ServerAPI(face: face, reads: reads, auth: BearerAuthenticator(face: reads, now: Date.init),
                            answers: AnswerCache(store: store.address))
        self.api = api
        http = HTTPServer(handler: { request in api.cachedAnswer(request) ?? blocking { await api.respond(request) } },
                          gate: { request in blocking { await api.refusalBeforeBody(request) } },
                          refusal: ServerAPI.refusal, log: log)
        sender = NotificationSender(face: face, urls: notifyURLs, log: log)
        senderLock = SenderLock(store: store.address)
    }

    /// Answers one request as the HTTP server does (the kept answers first, then the API),
    /// without a socket: how tests route a request in process. Needs no ``start(listen:)``.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let cached = api.cachedAnswer(request) { return cached }
        return await api.respond(request)
    }

    /// Whether this server sends the store's notifications: one server per store file does
    /// (the one holding its sender lock); another serves the API only, until that one stops.
    public var isSending: Bool { sending.load(ordering: .acquiring) }

    /// Listens on `address` and starts delivering (unless another server sends this store's
    /// notifications); returns the port (the system's choice for port 0). Throws when the
    /// store file's transactions are another app's than the catalog's: its tokens would be
    /// the catalog app's, answered with that other app's purchases.
    @discardableResult
    public func start(listen address: ListenAddress) async throws -> UInt16 {
        let bundleID = store.catalog.bundleID
        if let signed = await store.appStore.signedBundleID(), signed != bundleID {
            throw ServerError("this store file's purchases are signed for \(signed), not the catalog's bundle id \(bundleID): serve it with \(signed)'s catalog (or give another --store)")
        }
        try http.start(address)
        let first = senderLock.take()
        guard first != .taken else {
            startDelivery()
            return http.port
        }
        log(Self.notSending(first, lock: senderLock))
        waitForLock(first)
        return http.port
    }

    /// Where the sender lock is watched and waited for: off Swift's shared pool, whose threads
    /// blocking work elsewhere can hold for seconds (a replica would send on, or not take over,
    /// that long), and which a lock's own checks (a round trip to PostgreSQL) must not block.
    private static let lockWatch = DispatchTaskExecutor(label: "storefront.serve.sender-lock")

    /// Looks again each second: sends once the other server stops, or once the lock can be
    /// made (the folder in its place removed), saying so; a changed reason is said once too.
    private func waitForLock(_ first: SenderLock.Outcome) {
        let lock = senderLock, log = log
        tasks.withLock { tasks in
            guard !tasks.stopped else { return }
            tasks.takeover = Task.detached(executorPreference: Self.lockWatch) { [weak self] in
                var said = first
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard !Task.isCancelled else { return }
                    let now = lock.take()
                    if now == .taken {
                        log("now sending notifications (\(Self.reasonItChanged(said)))")
                        self?.startDelivery()
                        return
                    }
                    if Self.differs(now, said) { log(Self.notSending(now, lock: lock)) }
                    said = now
                }
            }
        }
    }

    /// Why this server does not send, for the log: another holds the lock, or it cannot be taken.
    static func notSending(_ outcome: SenderLock.Outcome, lock: SenderLock) -> String {
        switch outcome {
        case .held(let pid):
            return "not sending notifications: another storefront serve\(pid.map { " (pid \($0))" } ?? "") sends this store file's; this one serves the API, and sends once that one stops"
        case .unavailable(let reason):
            return "not sending notifications: the sender lock \(lock.path) cannot be taken (\(reason)), so whether another serve sends this store's cannot be known, and sending too would deliver each notification twice; this one serves the API, and sends once the lock can be taken (remove what is in its place, or make its folder writable)"
        case .taken:
            return ""
        }
    }

    /// The words for what ended the wait: the other server stopped, or the lock became possible.
    private static func reasonItChanged(_ outcome: SenderLock.Outcome) -> String {
        if case .held = outcome { return "the other serve stopped" }
        return "the sender lock can be taken now"
    }

    /// Whether a new outcome is worth a line: held by another instead of unavailable, or the reverse
    /// (a changed pid or error text alone is not).
    private static func differs(_ a: SenderLock.Outcome, _ b: SenderLock.Outcome) -> Bool {
        switch (a, b) {
        case (.held, .held), (.unavailable, .unavailable): false
        default: true
        }
    }

    private func startDelivery() {
        let sender = sender, lock = senderLock
        // The store's change feed wakes the sender: a write to the store file, a renewal due, a retry due.
        let feed = store.changes
        tasks.withLock { tasks in
            guard !tasks.stopped else { return }
            let changes = feed.changes(includingUnfinished: false)
            tasks.delivery = Task.detached { await sender.run(changes: changes, feed: feed) }
            // A PostgreSQL session can break while this process lives (a restarted server, a
            // network cut): the server drops the lock with it, and another replica may take it.
            // Sending on would deliver every notification twice: stop, and wait for the lock again.
            tasks.watch = Task.detached(executorPreference: Self.lockWatch) { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard !Task.isCancelled else { return }
                    if !lock.isStillHeld() {
                        await self?.lostLock()
                        return
                    }
                }
            }
            sending.store(true, ordering: .releasing)
        }
    }

    /// The sender lock went with its session: stop sending, say so, and wait to take it again.
    private func lostLock() async {
        let delivery = tasks.withLock { tasks in
            defer { tasks.delivery = nil }
            return tasks.delivery
        }
        delivery?.cancel()
        await delivery?.value
        sending.store(false, ordering: .releasing)
        senderLock.release()
        let reason = "its session with the database ended"
        log("stopped sending notifications: the sender lock was lost (\(reason)); another serve may send now; this one sends again once it can take the lock")
        waitForLock(.unavailable(reason))
    }

    /// Stops listening (waiting for requests in flight) and delivering.
    public func stop() async {
        http.stop()
        let running = tasks.withLock { tasks in
            tasks.stopped = true
            return tasks
        }
        for task in [running.takeover, running.watch] {
            task?.cancel()
            await task?.value
        }
        // A watch that found the lock lost may have started a takeover meanwhile: stopped now.
        let (takeover, delivery) = tasks.withLock { ($0.takeover, $0.delivery) }
        takeover?.cancel()
        await takeover?.value
        delivery?.cancel()  // ends the loop's sequence of changes at once
        await delivery?.value
        sending.store(false, ordering: .releasing)
        senderLock.release()
    }
}

/// Runs async work from a libmicrohttpd connection thread (not Swift's pool), waiting for it.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = Box<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// The result `blocking` waits for: written once by the task, read after the semaphore.
private final class Box<T>: @unchecked Sendable { var value: T? }
