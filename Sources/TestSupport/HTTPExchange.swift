import Foundation
import Glibc

/// One exchange with an HTTP server on a loopback port, over a socket of its own, for tests that
/// speak HTTP byte by byte (what a client library would never send).
public enum HTTPExchange {
    /// Sends `text` on a new connection and reads what comes back within `seconds` (the status
    /// line and the rest), on a thread of its own: a blocked thread of Swift's small pool would
    /// starve the server's own tasks in this process, and Dispatch's shared queue is itself
    /// starved when a whole test run blocks on it.
    public static func send(port: UInt16, _ text: String, seconds: Int = 60) async -> String {
        await withCheckedContinuation { done in
            Thread { done.resume(returning: blockingSend(port: port, text, seconds: seconds)) }.start()
        }
    }

    /// A connected loopback socket to `port` (-1 when it cannot connect within `seconds`), left
    /// open for the caller.
    public static func connect(port: UInt16, seconds: Int = 10) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        // connect waits this long at most (a full backlog drops the handshake, retried for minutes).
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            return -1
        }
        return socket
    }

    /// ``send(port:_:seconds:)`` on the calling thread, for a loop that runs on a thread of its
    /// own (``onOwnThread(_:)``) and must not wait for Swift's pool between its tries.
    public static func blockingSend(port: UInt16, _ text: String, seconds: Int) -> String {
        let socket = connect(port: port, seconds: seconds)
        guard socket >= 0 else { return "" }
        defer { close(socket) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[..<count]
            // One response is enough: its headers and the body its Content-Length announces.
            if let text = String(bytes: answer, encoding: .utf8), let end = text.range(of: "\r\n\r\n"),
               let length = text[..<end.lowerBound].split(separator: "\r\n")
                .first(where: { $0.lowercased().hasPrefix("content-length:") })
                .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
               text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length { break }
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
