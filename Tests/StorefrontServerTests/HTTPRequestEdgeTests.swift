import Foundation
import Glibc
import StoreEngine
@testable import StorefrontServer
import Testing
import TestSupport

/// Issue 43's smaller faults of the HTTP layer, over a real socket to libmicrohttpd: a NUL in the
/// path, a Content-Length that is no number, libmicrohttpd's own refusals, a repeated header, a
/// high-S token, and its log kept to a budget.
@Suite("AppStoreServer: HTTP edges (NUL in a path, bad Content-Length, repeated headers, connection limits)")
struct HTTPRequestEdgeTests {
    typealias Fixture = ServerAPITests.Fixture

    /// The status lines in an answer: one per response sent.
    static func statusLines(_ answer: String) -> [String] {
        answer.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
    }

    @Test("/inApps/v1/transactions/ID%00junk is not transaction ID: a NUL does not cut the path short")
    func nulInThePath() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let port = try await ServerGateTests.started(fixture)
        let token = try fixture.token()
        func get(_ path: String) async -> String {
            await ServerGateTests.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        }
        let whole = await get("/inApps/v1/transactions/\(pro.id)")
        #expect(whole.hasPrefix("HTTP/1.1 200"), "\(whole.prefix(200))")
        for path in ["/inApps/v1/transactions/\(pro.id)%00junk", "/inApps/v1/transactions/\(pro.id)%00", "/inApps/v2/history/\(pro.id)%00x"] {
            let cut = await get(path)
            #expect(!cut.hasPrefix("HTTP/1.1 200"), "\(path): \(cut.prefix(300))")
            #expect(cut.hasPrefix("HTTP/1.1 400") || cut.hasPrefix("HTTP/1.1 404"), "\(path): \(cut.prefix(300))")
        }
        // A query value keeps its %00 too: never cut to a value it did not say.
        let query = await get("/inApps/v2/history/\(pro.id)?productId=pro%00x")
        #expect(query.hasPrefix("HTTP/1.1 200"), "\(query.prefix(300))")
        let body = query.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        let history = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        #expect((history?["signedTransactions"] as? [String])?.isEmpty == true, "a product id cut at the NUL matched: \(body.prefix(300))")
        await fixture.server.stop()
    }

    @Test("A Content-Length of -5, +2, 2^64 or more, or two values: one response, a 400 with Apple's JSON body")
    func badContentLength() async throws {
        let fixture = try await Fixture()
        let port = try await ServerGateTests.started(fixture)
        let token = try fixture.token()
        for length in ["-5", "+2", "99999999999999999999999", "18446744073709551616", "5, 5", "0x5"] {
            let answer = await ServerGateTests.exchange(port: port, "POST /inApps/v1/notifications/test HTTP/1.1\r\nHost: x\r\n"
                                                        + "Authorization: Bearer \(token)\r\nContent-Length: \(length)\r\n\r\nabcde", seconds: 10)
            #expect(Self.statusLines(answer) == ["HTTP/1.1 400 Bad Request"], "\(length): \(answer.prefix(500))")
            let body = answer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            #expect(object?["errorCode"] as? Int == 4000000, "\(length): \(body)")
        }
        // The server goes on answering.
        let fine = await ServerGateTests.exchange(port: port, "GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        #expect(Self.statusLines(fine).count == 1, "\(fine.prefix(300))")
        await fixture.server.stop()
    }

    @Test("libmicrohttpd's own refusals: 431 for headers past its memory, 400 for a malformed header line; one response each")
    func libmicrohttpdsOwnPages() async throws {
        let fixture = try await Fixture()
        let port = try await ServerGateTests.started(fixture)
        let big = await ServerGateTests.exchange(port: port, "GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\nX-Big: "
                                                 + String(repeating: "a", count: 300_000) + "\r\n\r\n", seconds: 10)
        #expect(Self.statusLines(big) == ["HTTP/1.1 431 Request Header Fields Too Large"], "\(big.prefix(300))")
        // A header line without a colon, in the middle of the headers.
        let malformed = await ServerGateTests.exchange(port: port, "GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\nno colon here\r\nX: y\r\n\r\n", seconds: 10)
        #expect(Self.statusLines(malformed) == ["HTTP/1.1 400 Bad Request"], "\(malformed.prefix(300))")
        await fixture.server.stop()
    }

    @Test("A header that must come once (Content-Type, Content-Length, Host) sent twice is 400")
    func repeatedHeader() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let port = try await ServerGateTests.started(fixture)
        let token = try fixture.token()
        for twice in ["Host: y", "Content-Type: application/json\r\nContent-Type: text/plain", "Content-Length: 0\r\nContent-Length: 0"] {
            let answer = await ServerGateTests.exchange(port: port, "GET /inApps/v1/transactions/\(pro.id) HTTP/1.1\r\nHost: x\r\n"
                                                        + "Authorization: Bearer \(token)\r\n\(twice)\r\nConnection: close\r\n\r\n")
            #expect(Self.statusLines(answer) == ["HTTP/1.1 400 Bad Request"], "\(twice): \(answer.prefix(300))")
        }
        await fixture.server.stop()
    }

    /// P-256's group order, big-endian.
    static let order: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                 0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51]

    /// `order - s`: the other signature (r, n − s) that verifies as well as (r, s).
    static func negated(_ s: ArraySlice<UInt8>) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var difference = Int(order[index]) - Int(s[s.startIndex + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }

    @Test("A bearer token whose ECDSA signature has a high S is accepted, as its low-S twin is (docs/server-api.md)")
    func highSTokenAccepted() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let token = try fixture.token()
        let parts = token.split(separator: ".").map(String.init)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let twin = parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(signature[..<32]) + Self.negated(signature[32...]))
        // One of the two has S above n/2: both answer.
        let highIsTwin = signature[32] < 0x80
        for candidate in [token, twin] {
            let response = try await fixture.send("GET", "/inApps/v1/transactions/\(pro.id)", authorization: "Bearer \(candidate)")
            #expect(response.status == 200, "\(candidate == twin ? "twin" : "original") (high S: \(highIsTwin == (candidate == twin)))")
        }
        // A signature changed otherwise is refused: the acceptance is of the twin, not of anything.
        var broken = signature
        broken[63] ^= 1
        let forged = parts[0] + "." + parts[1] + "." + Base64URL.encode(broken)
        #expect(try await fixture.send("GET", "/inApps/v1/transactions/\(pro.id)", authorization: "Bearer \(forged)").status == 401)
    }

    @Test("libmicrohttpd's log is kept to 5 lines in 10 s, then counted: a flood of refusals is not a flood of stderr")
    func logBudget() {
        var window = LogWindow()
        var lines: [String] = []
        let second: UInt64 = 1_000_000_000
        for index in 0..<100_000 { lines += window.admit("Server reached connection limit.", at: UInt64(index) * 1_000) }
        #expect(lines.count == 5)
        #expect(lines.last?.contains("counted, not shown") == true)
        lines = window.admit("later", at: 11 * second)
        #expect(lines == ["99995 more messages left out", "later"])
        #expect(window.takeLeftOut() == nil)
    }

    @Test("The connection limit leaves files free beside the connections, under a low limit on open files and a high one")
    func connectionLimitFollowsTheFileLimit() {
        let limit = HTTPServer.connectionLimit()
        #expect((4...HTTPServer.mostConnections).contains(limit))
        var files = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
        #expect(limit <= max(4, Int(files.rlim_cur) - HTTPServer.filesKeptFree))
        let server = HTTPServer(handler: { _ in HTTPResponse(status: 200) }, connectionLimit: 3, idleSeconds: 2)
        #expect(server.connectionLimit == 3 && server.idleSeconds == 2)
    }

    @Test("Connections past the limit are closed at once; idle ones are closed after the deadline, and the server answers again")
    func idleConnectionsAreClosed() async throws {
        let lines = NotificationDeliveryTests.Lines()
        let server = HTTPServer(handler: { _ in HTTPResponse(status: 200, body: Array("ok".utf8)) },
                                log: { line in lines.all.withLock { $0.append(line) } }, connectionLimit: 4, idleSeconds: 2)
        try server.start(ListenAddress("127.0.0.1:0")!)
        defer { server.stop() }
        let idle = (0..<40).map { _ in HTTPExchange.connect(port: server.port) }
        defer { idle.forEach { close($0) } }
        // The tries run on a thread of their own: on Swift's pool (two threads here) a busy test
        // run held this loop up for 30 s between its first try and its second.
        let port = server.port
        let (answered, tries) = try await onOwnThread { () -> (TimeInterval?, [String]) in
            let start = Date()
            var tries: [String] = []  // what each try got, for the failure's message
            while Date().timeIntervalSince(start) < 30 {
                let answer = HTTPExchange.blockingSend(port: port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", seconds: 2)
                tries.append(String(format: "%.1f s: ", Date().timeIntervalSince(start)) + (answer.isEmpty ? "nothing" : String(answer.prefix(20))))
                if answer.hasPrefix("HTTP/1.1 200") { return (Date().timeIntervalSince(start), tries) }
                usleep(200_000)
            }
            return (nil, tries)
        }
        let logged = lines.all.withLock { $0 }
        print("40 idle connections, limit 4, deadline 2 s: answered after \(answered.map { String(format: "%.1f s", $0) } ?? "never"), \(logged.count) log lines")
        // 2 s and a little on a quiet machine; a loaded one stretches it, never to "never".
        #expect(answered != nil, "no answer in 30 s; port \(server.port), \(idle.filter { $0 < 0 }.count) idle sockets not connected, tries \(tries), log \(logged)")
        #expect(logged.count <= 6, "\(logged)")
    }
}
