import Foundation
import StoreEngine
import StorefrontServer
import Testing
import TestSupport

/// Get Transaction History and Get Refund History paged by `revision`, as a backend that keeps
/// the last revision (Apple's advice) and polls with it reads them: every later change of an
/// older transaction comes back on the next call, and nothing it has seen comes back unchanged.
@Suite("ServerAPI: history and refund history by revision")
struct ServerRevisionTests {
    typealias Fixture = ServerAPITests.Fixture

    /// A backend's poller: it keeps the last revision of an endpoint, and reads every page after it.
    struct Backend {
        let fixture: Fixture
        let path: String
        var revision: String?

        /// Every transaction changed since the last poll (its payload), in the order the pages give them.
        mutating func poll() async throws -> [[String: Any]] {
            var seen: [[String: Any]] = []
            while true {
                let response = try await fixture.send("GET", path, query: revision.map { [("revision", $0)] } ?? [])
                #expect(response.status == 200)
                let page = try ServerAPITests.object(response)
                seen += try (page["signedTransactions"] as? [Any] ?? []).map { try ServerAPITests.payload($0) }
                revision = try #require(page["revision"] as? String)
                if page["hasMore"] as? Bool != true { return seen }
            }
        }
    }

    static func ids(_ payloads: [[String: Any]]) -> [String] { payloads.compactMap { $0["transactionId"] as? String } }

    @Test("History v2: a backend keeping its last revision sees a later refund, extension and renewal of older transactions, once each")
    func historyByRevision() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let monthly = try await fixture.buy("monthly")
        var coins: [Int64] = []
        for _ in 0..<21 { coins.append(try await fixture.buy("coins").id) }
        var backend = Backend(fixture: fixture, path: "/inApps/v2/history/\(pro.id)")
        let first = try await backend.poll()
        #expect(Self.ids(first) == ([pro.id, monthly.id] + coins).map(String.init), "two pages, in the order they were made")
        #expect(try await backend.poll().isEmpty, "nothing changed since the revision kept")

        // Changes of older transactions, newest last: each comes back once, after what it was.
        _ = try await fixture.store.appStore.refund(pro.id)
        let refunded = try await backend.poll()
        #expect(Self.ids(refunded) == [String(pro.id)])
        #expect(refunded.first?["revocationDate"] != nil)
        _ = try await fixture.store.appStore.refund(coins[3])
        _ = try #require(try await fixture.store.appStore.extendSubscription(originalTransactionID: monthly.id, days: 5))
        let changed = try await backend.poll()
        #expect(Self.ids(changed) == [String(coins[3]), String(monthly.id)], "in the order they changed")
        #expect(changed.last?["expiresDate"] as? Int == Int(monthly.expirationDate!.milliseconds + 5 * 86_400_000))
        #expect(try await backend.poll().isEmpty)

        // A renewal is a new transaction: it comes after every change before it.
        fixture.clock.advance(by: 40 * 86_400)
        let renewed = try await backend.poll()
        #expect(renewed.count == 1 && renewed.first?["originalTransactionId"] as? String == String(monthly.id)
                && renewed.first?["transactionId"] as? String != String(monthly.id))

        // DESCENDING lists the latest change first.
        let descending = try ServerAPITests.object(try await fixture.send("GET", "/inApps/v2/history/\(pro.id)",
                                                                          query: [("sort", "DESCENDING")]))
        let newest = try (descending["signedTransactions"] as? [Any] ?? []).prefix(3).map { try ServerAPITests.payload($0) }
        #expect(newest.map { $0["transactionId"] as? String } == [renewed.first?["transactionId"] as? String, String(monthly.id), String(coins[3])])
    }

    @Test("Refund History: a backend keeping its revision sees a later refund of an older purchase, in the order refunded")
    func refundsByRevision() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        var coins: [Int64] = []
        for _ in 0..<3 { coins.append(try await fixture.buy("coins").id) }
        _ = try await fixture.store.appStore.refund(coins[2])
        var backend = Backend(fixture: fixture, path: "/inApps/v2/refund/lookup/\(pro.id)")
        #expect(Self.ids(try await backend.poll()) == [String(coins[2])])
        // An older purchase refunded later: after the revision kept, where a page by id would never reach.
        _ = try await fixture.store.appStore.refund(pro.id)
        _ = try await fixture.store.appStore.refund(coins[0])
        let later = try await backend.poll()
        #expect(Self.ids(later) == [String(pro.id), String(coins[0])], "in the order they were refunded")
        #expect(later.allSatisfy { $0["revocationDate"] != nil })
        #expect(try await backend.poll().isEmpty)
    }

    @Test("Refund History leaves out a family member's revoked share: the member was refunded nothing")
    func familyRevocationIsNoRefund() async throws {
        let folder = try TemporaryFolder(prefix: "storefront-server-family")
        let clock = TestClock(Date(timeIntervalSince1970: 1_767_225_600))
        let catalog = try Catalog.parse(Array("""
            {
              "storefront": "USA",
              "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
              "products": [ { "id": "pro", "type": "nonConsumable", "displayName": "Pro", "price": "9.99", "familyShareable": true } ]
            }
            """.utf8), file: "family.json")
        let path = folder.path("store.sqlite")
        let alice = try Store(catalog: catalog, path: path, account: "alice", now: clock.closure)
        let bob = try Store(catalog: catalog, path: path, account: "bob", now: clock.closure)
        _ = try await alice.testSession.createFamily("smiths")
        try await alice.testSession.addFamilyMember("bob", to: "smiths")
        let bought = try #require(try await alice.app.buy("pro").outcome.transaction)
        let share = try #require(try await bob.app.unfinished().first)
        _ = try await alice.appStore.refund(bought.id)
        #expect(try await bob.app.transaction(id: share.id).revocationDate != nil, "the share is revoked")

        let server = AppStoreServer(store: alice, notifyURLs: [], log: { _ in })
        let key = try SigningKey.generate()
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        try await alice.appStore.addAPIKey(keyID: key.keyID, issuerID: issuer, publicKeyPEM: key.publicKeyPEM)
        let now = Int(Date().timeIntervalSince1970)
        let token = try key.sign(.object(["iss": .string(issuer), "iat": .integer(now), "exp": .integer(now + 600),
                                          "aud": .string("appstoreconnect-v1"), "bid": .string(catalog.bundleID)]))
        func refunds(_ id: Int64) async throws -> [String] {
            let response = await server.respond(to: HTTPRequest(method: "GET", path: "/inApps/v2/refund/lookup/\(id)",
                                                                headers: ["authorization": "Bearer \(token)"]))
            return Self.ids(try (ServerAPITests.object(response)["signedTransactions"] as? [Any] ?? []).map { try ServerAPITests.payload($0) })
        }
        #expect(try await refunds(share.id).isEmpty)
        #expect(try await refunds(bought.id) == [String(bought.id)])
    }
}
