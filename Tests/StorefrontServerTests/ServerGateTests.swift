import Foundation
import Glibc
import StoreEngine
import StorefrontServer
import Testing
import TestSupport

/// What a request meets before an endpoint, over a real socket to libmicrohttpd: the token
/// checked before a body is read, Apple's JSON body on the HTTP layer's refusals, one
/// Authorization header, and the store's own bundle id.
@Suite("AppStoreServer: refusals before an endpoint")
struct ServerGateTests {
    typealias Fixture = ServerAPITests.Fixture

    /// Sends `text` on a new connection and reads one response (TestSupport's ``HTTPExchange``).
    static func exchange(port: UInt16, _ text: String, seconds: Int = 60) async -> String {
        await HTTPExchange.send(port: port, text, seconds: seconds)
    }

    static func started(_ fixture: Fixture) async throws -> UInt16 {
        try await fixture.server.start(listen: ListenAddress("127.0.0.1:0")!)
    }

    @Test("A body behind a bad token is refused (401) on its headers, before one byte of it is read")
    func tokenBeforeBody() async throws {
        let fixture = try await Fixture()
        let port = try await Self.started(fixture)
        // 900 KB announced, none sent: the answer must come without it.
        let answer = await Self.exchange(port: port, "POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: x\r\n"
                                   + "Authorization: Bearer not.a.token\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer.prefix(200))")
        let none = await Self.exchange(port: port, "PUT /inApps/v1/transactions/consumption/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 500000\r\n\r\n")
        #expect(none.hasPrefix("HTTP/1.1 401"), "\(none.prefix(200))")
        // A good token's body is read and answered as before.
        let token = try fixture.token()
        // The day before the fixture's clock: Apple refuses a start more than 180 days back (4000012).
        let end = Int(fixture.clock.now.timeIntervalSince1970 * 1000)
        let body = #"{"startDate": \#(end - 86_400_000), "endDate": \#(end)}"#
        let good = await Self.exchange(port: port, "POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                                 + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(good.hasPrefix("HTTP/1.1 200"), "\(good.prefix(300))")
        await fixture.server.stop()
    }

    @Test("A body over 1 MB is 413 with Apple's JSON error body, refused on its Content-Length")
    func tooLarge() async throws {
        let fixture = try await Fixture()
        let port = try await Self.started(fixture)
        let answer = await Self.exchange(port: port, "POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: x\r\n"
                                   + "Authorization: Bearer \(try fixture.token())\r\nContent-Length: 2000000\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
        let body = answer.components(separatedBy: "\r\n\r\n").dropFirst().joined()
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        #expect(object?["errorCode"] as? Int == 4000000, "\(body)")
        #expect(object?["errorMessage"] is String)
        await fixture.server.stop()
    }

    @Test("Two Authorization headers are refused (401), whichever one is good")
    func twoAuthorizations() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let port = try await Self.started(fixture)
        let token = try fixture.token()
        let one = await Self.exchange(port: port, "GET /inApps/v1/transactions/\(pro.id) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
        #expect(one.hasPrefix("HTTP/1.1 200"), "\(one.prefix(200))")
        for pair in [("Bearer forged", "Bearer \(token)"), ("Bearer \(token)", "Bearer forged"), ("Bearer \(token)", "Bearer \(token)")] {
            let two = await Self.exchange(port: port, "GET /inApps/v1/transactions/\(pro.id) HTTP/1.1\r\nHost: x\r\n"
                                    + "Authorization: \(pair.0)\r\nAuthorization: \(pair.1)\r\n\r\n")
            #expect(two.hasPrefix("HTTP/1.1 401"), "\(two.prefix(200))")
        }
        await fixture.server.stop()
    }

    @Test("A token padded with spaces and tabs is the token; a blank one, or one that is cut or joined, is none")
    func tokenPadding() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let token = try fixture.token()
        let path = "/inApps/v1/transactions/\(pro.id)"
        // Twice each: the first answer is read from the store, the second may come from the answer cache.
        for header in ["Bearer \(token)", "Bearer  \t\(token)", "Bearer \(token) \t ", "Bearer \t \(token)\t"] {
            for _ in 0..<2 {
                #expect(try await fixture.send("GET", path, authorization: header).status == 200, "\(header.debugDescription)")
            }
        }
        for header in ["Bearer ", "Bearer \t  ", "Bearer \(token.dropLast())", "Bearer \(token)x", "Bearer \(token) \(token)",
                       "bearer \(token)", "Bearer\t\(token)"] {
            #expect(try await fixture.send("GET", path, authorization: header).status == 401, "\(header.debugDescription)")
        }
    }

    @Test("serve refuses to start over a store file whose purchases are another app's: that app's tokens would get them")
    func anotherAppsStore() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.buy("pro")
        let text = ServerAPITests.catalogText.replacingOccurrences(of: #""storefront": "USA","#,
                                                                    with: #""bundleID": "com.example.another", "storefront": "USA","#)
        let another = try Catalog.parse(Array(text.utf8), file: "another.json")
        #expect(another.bundleID == "com.example.another")
        let server = AppStoreServer(store: try Store(catalog: another, path: fixture.store.path), notifyURLs: [], log: { _ in })
        await #expect(throws: ServerError.self) { try await server.start(listen: ListenAddress("127.0.0.1:0")!) }
        await server.stop()
        // The store's own catalog serves it.
        _ = try await Self.started(fixture)
        await fixture.server.stop()
    }
}
