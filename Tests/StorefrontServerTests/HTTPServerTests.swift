import Foundation
import Glibc
import StorefrontServer
import Testing

/// The HTTP layer itself, libmicrohttpd started for real: where it can listen and what it says
/// when it cannot.
@Suite("HTTPServer")
struct HTTPServerTests {
    /// Whether this process may hold more than 1,024 files (else no socket can be numbered past select's limit).
    static var manyFilesAllowed: Bool {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur >= 1_400
    }

    @Test("Listens and answers when the process already holds more than 1,024 files (select's limit)",
          .enabled(if: manyFilesAllowed))
    func listensPastSelectsLimit() async throws {
        let held = (0..<1_100).map { _ in open("/dev/null", O_RDONLY) }
        defer { held.forEach { close($0) } }
        #expect(held.allSatisfy { $0 >= 0 })
        #expect(held.max()! >= 1_024)
        let server = HTTPServer(handler: { _ in HTTPResponse(status: 200, body: Array("past select".utf8)) })
        try server.start(ListenAddress("127.0.0.1:0")!)
        defer { server.stop() }
        let answer = await ServerGateTests.exchange(port: server.port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(answer.hasSuffix("past select"))
    }

    @Test("A port already listened on is refused with libmicrohttpd's reason, not a guess")
    func portInUseNamesTheReason() throws {
        let first = HTTPServer(handler: { _ in HTTPResponse(status: 200) })
        try first.start(ListenAddress("127.0.0.1:0")!)
        defer { first.stop() }
        let second = HTTPServer(handler: { _ in HTTPResponse(status: 200) })
        let error = #expect(throws: ServerError.self) { try second.start(ListenAddress("127.0.0.1:\(first.port)")!) }
        let message = error.map { String(describing: $0) } ?? ""
        #expect(message.contains("cannot listen on 127.0.0.1:\(first.port)"))
        #expect(message.lowercased().contains("in use"))
    }
}
