import CMicroHTTPD
import Dispatch
import Foundation

/// One HTTP request as libmicrohttpd parsed it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded by libmicrohttpd, without the query.
    public var path: String
    /// Every query argument in order (a name may repeat: `productId=a&productId=b`).
    public var query: [(name: String, value: String)]
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    /// A request as libmicrohttpd would hand it over; header names are lower-cased here.
    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { $1 }
        self.body = body
    }

    /// Every value of a query argument.
    public func values(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }
}

/// One HTTP response: a status, a body and its headers.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    public var headers: [(String, String)]

    public init(status: Int, body: [UInt8] = [], headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }
}

/// Where the server listens, from `--listen HOST:PORT`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    /// Parses `127.0.0.1:8089`, `[::1]:8089`, `localhost:8089` (a name other than localhost is refused: give an address).
    public init?(_ text: String) {
        let host: Substring, port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            port = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            (host, port) = (text[..<colon], text[text.index(after: colon)...])
        }
        guard let number = UInt16(port) else { return nil }
        let name = host == "localhost" ? "127.0.0.1" : String(host)
        var v4 = in_addr(), v6 = in6_addr()
        guard inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1 else { return nil }
        (self.host, self.port) = (name, number)
    }

    public var isIPv6: Bool { host.contains(":") }

    /// Whether only this machine can reach it: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// An HTTP server on libmicrohttpd: it parses requests (no hand-written parser here) and
/// calls `handler` on its own connection threads, which may block.
public final class HTTPServer: @unchecked Sendable {
    // The daemon pointer is set once in start and cleared once in stop, both under `lock`.
    private var daemon: OpaquePointer?
    private let lock = NSLock()
    /// libmicrohttpd's last message while starting: the reason when it cannot listen.
    private var startMessage: String?
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    /// Looks at a request's headers before its body is read: a response here is the answer,
    /// and the body is never taken in (an unauthenticated one costs no more than its headers).
    let gate: @Sendable (HTTPRequest) -> HTTPResponse?
    /// The answer to a request refused before it reaches `handler` (413, a repeated header), by status.
    let refusal: @Sendable (Int) -> HTTPResponse
    /// libmicrohttpd's own messages, one line each.
    let log: @Sendable (String) -> Void
    /// The largest request body accepted.
    static let maxBody = 1 << 20
    /// Headers a request may carry once only: with two, which one counts is the parser's guess.
    static let singleHeaders: Set<String> = ["authorization", "content-length", "content-type", "host"]
    /// The port listened on (the system's choice for port 0).
    public private(set) var port: UInt16 = 0
    /// Connections served at once; more are closed as they come (``connectionLimit()``).
    public let connectionLimit: Int
    /// How long a connection may send nothing — its headers not coming, a kept-alive one unused —
    /// before it is closed.
    public let idleSeconds: Int
    /// libmicrohttpd's messages in the current ``LogWindow``: a flood of one (every refused
    /// connection says so) must not fill the disk through stderr.
    private var logWindow = LogWindow()

    /// - Parameters:
    ///   - gate: sees a request with a body before the body is read (its `body` empty); a
    ///     response it returns is sent at once. Requests without a body go straight to `handler`.
    public init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse,
                gate: @escaping @Sendable (HTTPRequest) -> HTTPResponse? = { _ in nil },
                refusal: @escaping @Sendable (Int) -> HTTPResponse = { HTTPResponse(status: $0) },
                log: @escaping @Sendable (String) -> Void = { _ in },
                connectionLimit: Int = HTTPServer.connectionLimit(), idleSeconds: Int = 10) {
        self.handler = handler
        self.gate = gate
        self.refusal = refusal
        self.log = log
        self.connectionLimit = max(1, connectionLimit)
        self.idleSeconds = max(1, idleSeconds)
    }

    /// Files a server keeps free beside its connections: the store file, its `-wal` and `-shm`,
    /// the change feed's watch, a notification's socket, a read of a key file.
    static let filesKeptFree = 16
    /// Connections at most, whatever the limit on open files: each is a thread.
    static let mostConnections = 512

    /// As many connections as the process may open files for, beside those open now and
    /// ``filesKeptFree`` (at least 4, at most ``mostConnections``): were the connections to use
    /// every descriptor, the server could open nothing else, and would stop answering.
    public static func connectionLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return mostConnections }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return min(mostConnections, max(4, Int(limit.rlim_cur) - open - filesKeptFree))
    }

    /// Starts listening; throws a message when the address cannot be bound.
    public func start(_ address: ListenAddress) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        var started: OpaquePointer?
        if address.isIPv6 {
            var socket = sockaddr_in6()
            socket.sin6_family = sa_family_t(AF_INET6)
            socket.sin6_port = address.port.bigEndian
            inet_pton(AF_INET6, address.host, &socket.sin6_addr)
            started = withUnsafePointer(to: &socket) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    cmhd_start($0, 1, accessHandler, context, completedHandler, logHandler, UInt32(connectionLimit), UInt32(idleSeconds), badLengthHandler)
                }
            }
        } else {
            var socket = sockaddr_in()
            socket.sin_family = sa_family_t(AF_INET)
            socket.sin_port = address.port.bigEndian
            inet_pton(AF_INET, address.host, &socket.sin_addr)
            started = withUnsafePointer(to: &socket) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    cmhd_start($0, 0, accessHandler, context, completedHandler, logHandler, UInt32(connectionLimit), UInt32(idleSeconds), badLengthHandler)
                }
            }
        }
        guard let started else {
            guard cmhd_available() != 0 else { throw ServerError("cannot serve: libmicrohttpd (libmicrohttpd.so.12) is not installed") }
            let reason = lock.withLock { startMessage } ?? "the port is in use, or the address is not this machine's"
            throw ServerError("cannot listen on \(address) (\(reason))")
        }
        lock.withLock { daemon = started }
        port = cmhd_port(started)
    }

    /// Takes one of libmicrohttpd's messages: kept as the reason while starting, and logged —
    /// at most ``LogWindow/linesPerWindow`` in a window, then how many were left out.
    fileprivate func heard(_ line: String) {
        let lines = lock.withLock { () -> [String] in
            if daemon == nil { startMessage = line }
            return logWindow.admit(line, at: DispatchTime.now().uptimeNanoseconds)
        }
        for line in lines { log("libmicrohttpd: " + line) }
    }

    /// Stops listening and waits for the connection threads to end.
    public func stop() {
        let running = lock.withLock { () -> OpaquePointer? in
            defer { daemon = nil }
            return daemon
        }
        if let running { cmhd_stop(running) }
        if let count = lock.withLock({ logWindow.takeLeftOut() }) { log("libmicrohttpd: \(count)") }
    }

    deinit { stop() }
}

/// A budget of log lines: ``linesPerWindow`` in each ``seconds``-long window, then silence;
/// the first line of the next window says how many were left out. 1.37 million "Too many open
/// files" lines in 40 s filled 351 MB of stderr before there was one.
struct LogWindow {
    static let linesPerWindow = 5
    static let seconds: UInt64 = 10
    private var start: UInt64 = 0
    private var shown = 0
    private var leftOut = 0

    /// The lines to log for `line`, heard at `now` (nanoseconds): it, maybe after the count of
    /// those left out in the last window; or none.
    mutating func admit(_ line: String, at now: UInt64) -> [String] {
        var lines: [String] = []
        if shown == 0 || now - start >= Self.seconds * 1_000_000_000 {
            if let count = takeLeftOut() { lines.append(count) }
            (start, shown) = (now, 0)
        }
        guard shown < Self.linesPerWindow else {
            leftOut += 1
            return lines
        }
        shown += 1
        if shown == Self.linesPerWindow { return lines + [line + " (more such messages in the next \(Self.seconds) s are counted, not shown)"] }
        return lines + [line]
    }

    /// How many were left out since the last such line, said once (nil: none).
    mutating func takeLeftOut() -> String? {
        defer { leftOut = 0 }
        return leftOut == 0 ? nil : "\(leftOut) more message\(leftOut == 1 ? "" : "s") left out"
    }
}

/// A message for the person who started the server.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A request's body as it arrives, kept between libmicrohttpd's calls for one request.
private final class RequestState {
    var body: [UInt8] = []
    var tooLarge = false
}

/// Collects query arguments or headers from libmicrohttpd's iterator.
private final class Collected {
    var pairs: [(String, String)] = []
}

private let collect: MHD_KeyValueIterator = { context, _, key, value in
    let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
    collected.pairs.append((key.map { String(cString: $0) } ?? "", value.map { String(cString: $0) } ?? ""))
    return cmhd_yes()
}

private func values(_ connection: OpaquePointer?, headers: Bool) -> [(String, String)] {
    let collected = Collected()
    withExtendedLifetime(collected) {
        let context = Unmanaged.passUnretained(collected).toOpaque()
        _ = headers ? cmhd_headers(connection, collect, context) : cmhd_arguments(connection, collect, context)
    }
    return collected.pairs
}

/// The request as parsed so far (its body empty until it is read), or nil and the name of a
/// header sent twice that must come once.
private func parsed(_ connection: OpaquePointer?, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                    body: [UInt8]) -> (request: HTTPRequest?, repeated: String?) {
    var headers: [String: String] = [:]
    for (name, value) in values(connection, headers: true) {
        let name = name.lowercased()
        if headers.updateValue(value, forKey: name) != nil, HTTPServer.singleHeaders.contains(name) { return (nil, name) }
    }
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        query: values(connection, headers: false).map { (name: $0.0, value: $0.1) },
        headers: headers, body: body)
    return (request, nil)
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer?) -> MHD_Result {
    let made = response.body.withUnsafeBytes { cmhd_response($0.count, $0.baseAddress) }
    guard let made else { return cmhd_no() }
    defer { cmhd_destroy_response(made) }
    for (name, value) in response.headers { _ = cmhd_add_header(made, name, value) }
    return cmhd_queue(connection, UInt32(response.status), made)
}

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, state in
    guard let context, let state, let uploadSize else { return cmhd_no() }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    guard let current = state.pointee else {
        // The first call of a request: only its headers so far. One that announces a body is
        // looked at now, before any of the body is taken in.
        state.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
        let (request, repeated) = parsed(connection, url: url, method: method, body: [])
        guard let request else {
            // Two bearer tokens are no token: refused as a bad one is.
            return queue(server.refusal(repeated == "authorization" ? 401 : 400), on: connection)
        }
        let length = request.headers["content-length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let length, length > HTTPServer.maxBody { return queue(server.refusal(413), on: connection) }
        if (length ?? 0) > 0 || request.headers["transfer-encoding"] != nil, let refused = server.gate(request) {
            return queue(refused, on: connection)
        }
        return cmhd_yes()
    }
    let request = Unmanaged<RequestState>.fromOpaque(current).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if request.body.count + uploadSize.pointee > HTTPServer.maxBody {
            request.tooLarge = true
        } else if let upload {
            upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
            }
        }
        uploadSize.pointee = 0
        return cmhd_yes()
    }
    let response: HTTPResponse
    if request.tooLarge {
        response = server.refusal(413)
    } else if let parsed = parsed(connection, url: url, method: method, body: request.body).request {
        response = server.handler(parsed)
    } else {
        response = server.refusal(400)
    }
    return queue(response, on: connection)
}

private let logHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { context, line in
    guard let context, let line else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.heard(String(cString: line))
}

/// A Content-Length that is no number (`-5`, `+2`, past 2^64): the 400 written on the socket
/// itself, which is then shut for writing (see loader.c: libmicrohttpd 0.9.75's own answer repeats
/// its headers). Apple's JSON body, as every refusal before an endpoint.
private let badLengthHandler: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void = { context, socket in
    guard let context else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    let response = server.refusal(400)
    let head = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: \(response.body.count)\r\n"
        + response.headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
    let bytes = Array(head.utf8) + response.body
    var sent = 0
    while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard count > 0 else { break }
        sent += count
    }
    shutdown(socket, Int32(SHUT_WR))
}

private let completedHandler: MHD_RequestCompletedCallback = { _, _, state, _ in
    guard let state, let current = state.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(current).release()
    state.pointee = nil
}
