import Dispatch
import Foundation
import StoreEngine

/// `storefront serve`: the App Store Server API on `listen`, and Server Notifications V2
/// sent to each `notifyURL`, over one store file (any account in it).
public final class AppStoreServer: @unchecked Sendable {
    // Set in start, read after; stop is called once.
    let store: Store
    let api: ServerAPI
    let http: HTTPServer
    let sender: NotificationSender
    var delivery: Task<Void, Never>?

    /// - Parameters:
    ///   - log: a line per delivery attempt.
    public init(store: Store, notifyURLs: [String], log: @escaping @Sendable (String) -> Void) {
        self.store = store
        let face = store.appStore
        let api = ServerAPI(face: face, auth: BearerAuthenticator(face: face, now: Date.init),
                            answers: AnswerCache(storePath: store.path))
        self.api = api
        http = HTTPServer { request in api.cachedAnswer(request) ?? blocking { await api.respond(request) } }
        sender = NotificationSender(face: face, urls: notifyURLs, log: log)
    }

    /// Answers one request as the HTTP server does (the kept answers first, then the API),
    /// without a socket: how tests route a request in process. Needs no ``start(listen:)``.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let cached = api.cachedAnswer(request) { return cached }
        return await api.respond(request)
    }

    /// Listens on `address` and starts delivering; returns the port (the system's choice for port 0).
    @discardableResult
    public func start(listen address: ListenAddress) throws -> UInt16 {
        try http.start(address)
        let sender = sender
        // The store's change feed wakes the sender: a write to the store file, a renewal due, a retry due.
        let feed = store.changes
        let changes = feed.changes()
        delivery = Task.detached { await sender.run(changes: changes, feed: feed) }
        return http.port
    }

    /// Stops listening (waiting for requests in flight) and delivering.
    public func stop() async {
        http.stop()
        delivery?.cancel()  // ends the loop's sequence of changes at once
        await delivery?.value
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
