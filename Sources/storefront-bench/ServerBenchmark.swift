import Dispatch
import Foundation
import TestSupport
import Glibc
import StoreEngine
import StorefrontServer

/// `storefront serve` beside the same HTTP library (libmicrohttpd, through the server target's
/// `HTTPServer`) answering a fixed 1 KB body, and a notification's way from a purchase's commit
/// to the receiver beside a bare POST to that receiver.
enum ServerBenchmark {
    static let clients = 4

    // MARK: - The baseline server (storefront-bench --baseline-server)

    /// The same library and threading as serve, doing nothing but answer 1 KB (`/bytes/N`: N bytes,
    /// figure 10c's answer of serve's size): prints `listening PORT` and serves until killed.
    static func baselineServer() -> Never {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 1024)
        let server = HTTPServer { request in
            let size = request.path.hasPrefix("/bytes/") ? Int(request.path.dropFirst(7)) ?? 1024 : 1024
            return HTTPResponse(status: 200, body: size == 1024 ? body : [UInt8](repeating: UInt8(ascii: "x"), count: size),
                                headers: [("Content-Type", "application/json")])
        }
        do {
            try server.start(ListenAddress("127.0.0.1:0")!)
        } catch {
            FileHandle.standardError.write(Data("storefront-bench: \(error)\n".utf8))
            exit(1)
        }
        let line = Array("listening \(server.port)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        while true { pause() }
    }

    // MARK: - Requests per second and p99

    struct Load {
        var perSecond: Double
        var p99: Duration
    }

    /// `clients` threads, each on its own keep-alive connection, sending `request` for `duration`;
    /// given several ports (replicas), the clients take them in turn.
    static func load(ports: [UInt16], request: [UInt8], duration: Duration) throws -> Load {
        let group = DispatchGroup()
        let results = Results()
        for client in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let connection = try HTTPConnection(port: ports[client % ports.count])
                    var latencies: [Duration] = []
                    let clock = ContinuousClock(), end = clock.now + duration
                    while clock.now < end {
                        let start = clock.now
                        let status = try connection.exchange(request)
                        guard status == 200 else { throw PseudoTerminal.Failure(description: "the server answered \(status)") }
                        latencies.append(clock.now - start)
                    }
                    results.add(latencies)
                } catch {
                    results.fail(error)
                }
            }
            thread.start()
        }
        group.wait()
        if let error = results.error { throw error }
        let all = results.latencies.sorted()
        guard !all.isEmpty else { throw PseudoTerminal.Failure(description: "no request was answered") }
        return Load(perSecond: Double(all.count) / duration.seconds, p99: all[min(all.count - 1, all.count * 99 / 100)])
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var latencies: [Duration] = []
        private(set) var error: (any Error)?
        func add(_ more: [Duration]) { lock.withLock { latencies += more } }
        func fail(_ error: any Error) { lock.withLock { self.error = error } }
    }

    // MARK: - The whole part

    /// Figures 10, 10a and 10b.
    static func run(binary: String, benchBinary: String, catalog: Catalog, catalogPath: String, work: String,
                    rounds: Int, progress: (String) -> Void) async throws -> [Figure] {
        // A store with one purchase and a Server API key; serve and the baseline side by side.
        let path = work + "/serve.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        let transactionRequest = try await transactionInfoRequest(store: path, catalog: catalog)
        let serve = try serve(binary, store: path, catalogPath: catalogPath, work: work)
        defer { serve.stop() }
        let baseline = try Server(benchBinary, ["--baseline-server"], pattern: #"listening (\d+)"#, work: work)
        defer { baseline.stop() }
        let fixedRequest = Array("GET /fixed HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        // 10c: the same baseline answering as many bytes as serve's answer has (its signed transaction).
        let probe = try HTTPConnection(port: serve.port)
        guard try probe.exchange(transactionRequest) == 200 else { throw PseudoTerminal.Failure(description: "serve refused the request") }
        let answerBytes = probe.lastBodyLength
        let sizedRequest = Array("GET /bytes/\(answerBytes) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

        progress("10. transaction info with \(clients) clients beside a 1 KB answer and one of its size, \(rounds) rounds of 2 s each")
        var ours: [Load] = [], theirs: [Load] = [], sized: [Load] = []
        for _ in 0..<rounds {
            ours.append(try load(ports: [serve.port], request: transactionRequest, duration: .seconds(2)))
            theirs.append(try load(ports: [baseline.port], request: fixedRequest, duration: .seconds(2)))
            sized.append(try load(ports: [baseline.port], request: sizedRequest, duration: .seconds(2)))
        }
        let rate = median(ours.map(\.perSecond)), baseRate = median(theirs.map(\.perSecond))
        let sizedRate = median(sized.map(\.perSecond))
        let p99 = median(ours.map(\.p99)), baseP99 = median(theirs.map(\.p99))
        var figures = [
            Figure(number: "10", measure: "Transaction info requests per second, \(clients) clients (serve)",
                   value: String(format: "%.0f /s", rate), baseline: String(format: "1 KB answer %.0f /s", baseRate),
                   ratio: rate / baseRate, goal: "≥ 0.90", met: rate / baseRate >= 0.9),
            Figure(number: "10a", measure: "Transaction info p99 latency, \(clients) clients", value: milliseconds(p99),
                   baseline: "1 KB answer " + milliseconds(baseP99), ratio: p99 / baseP99, goal: ""),
            Figure(number: "10c", measure: "Transaction info requests per second beside an answer of its size",
                   value: String(format: "%.0f /s", rate), baseline: String(format: "%d B answer %.0f /s", answerBytes, sizedRate),
                   ratio: rate / sizedRate, goal: ""),
        ]
        serve.stop()

        progress("10b. a purchase's commit to the receiver's 200, beside a bare POST to that receiver")
        let (commitToReceiver, barePost) = try await notificationLatency(binary: binary, catalog: catalog,
                                                                         catalogPath: catalogPath, work: work)
        figures.append(Figure(number: "10b", measure: "A purchase's commit to the receiver's 200 (notification)",
                              value: milliseconds(commitToReceiver), baseline: "bare POST " + milliseconds(barePost),
                              ratio: commitToReceiver / barePost, goal: "≤ 2.00", met: commitToReceiver / barePost <= 2))
        return figures
    }

    /// Readies `store` (a file's path or a PostgreSQL URI) for Get Transaction Info: one purchase
    /// and a Server API key; returns the request for that transaction, with its bearer token.
    static func transactionInfoRequest(store: String, catalog: Catalog) async throws -> [UInt8] {
        let opened = try Store(catalog: catalog, path: store)
        guard let consumable = catalog.products.first(where: { $0.type == .consumable })?.id else {
            throw PseudoTerminal.Failure(description: "the catalog has no consumable")
        }
        guard case .purchased(let bought, _) = try await opened.app.purchase(consumable) else {
            throw PseudoTerminal.Failure(description: "the benchmark purchase did not succeed")
        }
        let key = try SigningKey.generate()
        try await opened.appStore.addAPIKey(keyID: key.keyID, issuerID: "bench", publicKeyPEM: key.publicKeyPEM)
        let now = Int(Date().timeIntervalSince1970)
        let token = try key.sign(.object(["iss": .string("bench"), "iat": .integer(now), "exp": .integer(now + 1800),
                                          "aud": .string("appstoreconnect-v1"), "bid": .string(catalog.bundleID)]))
        return Array("""
            GET /inApps/v1/transactions/\(bought.id) HTTP/1.1\r
            Host: 127.0.0.1\r
            Authorization: Bearer \(token)\r
            \r

            """.utf8)
    }

    /// `storefront serve` on `store`, on a port of its own on loopback.
    static func serve(_ binary: String, store: String, catalogPath: String, work: String) throws -> Server {
        try Server(binary, ["--catalog", catalogPath, "--store", store, "serve", "--listen", "127.0.0.1:0"],
                   pattern: #"listening on http://127\.0\.0\.1:(\d+)"#, work: work)
    }

    /// The receiver: an HTTPServer in this process noting when each POST arrives.
    final class Arrivals: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [ContinuousClock.Instant] = []
        private(set) var lastBody: [UInt8] = []
        let arrived = DispatchSemaphore(value: 0)
        func note(_ body: [UInt8]) {
            lock.withLock {
                times.append(ContinuousClock.now)
                lastBody = body
            }
            arrived.signal()
        }
        var last: ContinuousClock.Instant? { lock.withLock { times.last } }
        var body: [UInt8] { lock.withLock { lastBody } }
    }

    /// Medians over 30 purchases, and 30 bare POSTs of a notification's body.
    static func notificationLatency(binary: String, catalog: Catalog, catalogPath: String, work: String) async throws
        -> (Duration, Duration) {
        let arrivals = Arrivals()
        let receiver = HTTPServer { request in
            arrivals.note(request.body)
            return HTTPResponse(status: 200)
        }
        try receiver.start(ListenAddress("127.0.0.1:0")!)
        defer { receiver.stop() }
        let path = work + "/notify.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        let store = try Store(catalog: catalog, path: path)
        let consumable = catalog.products.first { $0.type == .consumable }!.id
        _ = try await store.app.purchase(consumable)
        let serve = try Server(binary, ["--catalog", catalogPath, "--store", path, "serve", "--listen", "127.0.0.1:0",
                                        "--notify", "http://127.0.0.1:\(receiver.port)/"],
                               pattern: #"listening on http://127\.0\.0\.1:(\d+)"#, work: work)
        defer { serve.stop() }
        func awaitArrival() throws {
            guard arrivals.arrived.wait(timeout: .now() + 10) == .success else {
                throw PseudoTerminal.Failure(description: "no notification reached the receiver in 10 s")
            }
        }
        try awaitArrival()  // the purchase made before serve started
        var latencies: [Duration] = []
        for _ in 0..<30 {
            guard case .purchased = try await store.app.purchase(consumable) else {
                throw PseudoTerminal.Failure(description: "a benchmark purchase did not succeed")
            }
            let committed = ContinuousClock.now
            try awaitArrival()
            latencies.append(arrivals.last! - committed)
        }
        serve.stop()
        let body = arrivals.body
        let post = Array("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        var bare: [Duration] = []
        for _ in 0..<30 {
            // A new connection each time, as the sender's ephemeral session may make.
            let start = ContinuousClock.now
            let connection = try HTTPConnection(port: receiver.port)
            guard try connection.exchange(post) == 200 else { throw PseudoTerminal.Failure(description: "the receiver refused a POST") }
            bare.append(ContinuousClock.now - start)
            try awaitArrival()
        }
        return (median(latencies), median(bare))
    }

    // MARK: - A server process

    /// A server started as a child, its port read from its output.
    final class Server {
        let pid: pid_t
        let port: UInt16
        private var running = true

        /// Spawned by TestSupport's `Processes`, with an empty signal mask and default actions: a child
        /// started from one of Swift's pool threads (which block signals) would otherwise never see its SIGTERM.
        init(_ executable: String, _ arguments: [String], pattern: String, work: String) throws {
            let output = work + "/server-\(UUID().uuidString).out"
            defer { unlink(output) }
            guard let child = Processes.spawn([executable] + arguments, stdout: output, stderr: output) else {
                throw PseudoTerminal.Failure(description: "cannot start \(executable)")
            }
            pid = child
            let regex = try Regex(pattern)
            let deadline = Date().addingTimeInterval(30)
            while true {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let match = text.firstMatch(of: regex), let capture = match.output[1].substring, let port = UInt16(capture) {
                    self.port = port
                    return
                }
                var status: Int32 = 0
                guard Date() < deadline, waitpid(child, &status, WNOHANG) == 0 else {
                    kill(child, SIGKILL)
                    waitpid(child, &status, 0)
                    throw PseudoTerminal.Failure(description: "\(executable) did not start: \(text.prefix(400))")
                }
                usleep(20_000)
            }
        }

        /// SIGTERM, and SIGKILL after 10 s.
        func stop() {
            guard running else { return }
            running = false
            kill(pid, SIGTERM)
            var status: Int32 = 0
            for _ in 0..<1000 {
                if waitpid(pid, &status, WNOHANG) == pid { return }
                usleep(10_000)
            }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
    }
}

/// One HTTP/1.1 connection on loopback: a request written whole, the answer read to its
/// Content-Length. Enough for measuring servers; not a general client.
final class HTTPConnection {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PseudoTerminal.Failure(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw PseudoTerminal.Failure(description: "connect to port \(port): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// The body length of the last answer `exchange` read.
    private(set) var lastBodyLength = 0

    /// Sends `request`; returns the answer's status once its whole body has arrived.
    func exchange(_ request: [UInt8]) throws -> Int {
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw PseudoTerminal.Failure(description: "write: errno \(errno)") }
            sent += count
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while true {
            if headerEnd == nil, let found = buffer.firstRange(of: separator) { headerEnd = found.upperBound }
            if let end = headerEnd {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if buffer.count >= end + length {
                    buffer.removeFirst(end + length)
                    lastBodyLength = length
                    return status
                }
            }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw PseudoTerminal.Failure(description: "the connection closed (errno \(errno))") }
            buffer += chunk[..<count]
        }
    }
}
