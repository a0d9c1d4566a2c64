import Foundation
import StoreEngine
import StorefrontServer
import Testing
import TestSupport

/// Every number a request carries (query dates, Notification History's body dates, revisions,
/// ids, body numbers) is range-checked and refused with Apple's error: none traps the server.
@Suite("ServerAPI: the numbers a request carries, range-checked")
struct ServerInputBoundsTests {
    typealias Fixture = ServerAPITests.Fixture

    @Test("History's startDate and endDate past the store's last date (Long.MAX_VALUE included) are Apple's 4000015 and 4000016")
    func historyDates() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        for version in ["v1", "v2"] {
            let path = "/inApps/\(version)/history/\(pro.id)"
            for huge in ["9223372036854775807", "253402300800000", "9223372036854775", "-1", "-9223372036854775808", "1e3", ""] {
                #expect(try ServerAPITests.error(try await fixture.send("GET", path, query: [("endDate", huge)])) == (400, 4000016),
                        "endDate=\(huge)")
                #expect(try ServerAPITests.error(try await fixture.send("GET", path, query: [("startDate", huge)])) == (400, 4000015),
                        "startDate=\(huge)")
            }
            // The last millisecond of 9999 is a date: an open-ended query as a backend writes it.
            let open = try await fixture.send("GET", path, query: [("startDate", "0"), ("endDate", "253402300799999")])
            #expect(open.status == 200)
            #expect((try ServerAPITests.object(open)["signedTransactions"] as? [Any])?.count == 1)
        }
        // A revision past every id is a page after the last: empty, not a trap.
        let revision = HistoryRevision.token(after: .max)
        let after = try await fixture.send("GET", "/inApps/v2/history/\(pro.id)", query: [("revision", revision)])
        #expect(after.status == 200)
        #expect((try ServerAPITests.object(after)["signedTransactions"] as? [Any])?.isEmpty == true)
    }

    @Test("Notification History's body dates past the store's last date are Apple's 4000015 and 4000016")
    func notificationHistoryDates() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.buy("pro")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let values: [Any] = [Int64.max, 253_402_300_800_000 as Int64, Int64.min, 1e300, -1]
        for huge in values {
            let late = try await fixture.send("POST", "/inApps/v1/notifications/history",
                                              body: ["startDate": now - 1000, "endDate": huge] as [String: Any])
            #expect(try ServerAPITests.error(late) == (400, 4000016), "endDate \(huge)")
            let early = try await fixture.send("POST", "/inApps/v1/notifications/history",
                                               body: ["startDate": huge, "endDate": now] as [String: Any])
            #expect(try ServerAPITests.error(early) == (400, 4000015), "startDate \(huge)")
        }
    }

    /// Values an attacker (or a careless backend) puts where a number or a name goes.
    static let hostile = ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-1", "0", "1", "18446744073709551616",
                          "99999999999999999999999", "1e400", "NaN", "-0", "0x10", " 1", "1 ", "", "%00", "\u{0}", "\u{1B}[2J",
                          "AUTO_RENEWABLE", "DESCENDING", "true", "5", "6", String(repeating: "9", count: 5000), "é", "🦄",
                          "cjoxMjM0", "bjox", "bjo5MjIzMzcyMDM2ODU0Nzc1ODA3", "253402300799999", "253402300800000"]

    /// JSON values for the bodies' number fields.
    static var hostileNumbers: [Any] { [Int64.max, Int64.min, -1, 0, 1, 90, 91, 1e300, -1e300, 0.5, "12", NSNull(), [1], ["a": 1], true] }

    @Test("1,500 seeded requests with hostile parameters and bodies on every endpoint: Apple's JSON error or an answer, never a trap")
    func fuzz() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let monthly = try await fixture.buy("monthly")
        var random = SplitMix64(state: 30)  // the same requests every run: a failure repeats
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        let ids = [String(pro.id), String(monthly.originalID)] + Self.hostile
        let queryNames = ["startDate", "endDate", "revision", "sort", "productId", "productType", "subscriptionGroupIdentifier",
                          "inAppOwnershipType", "revoked", "status", "paginationToken"]
        let bodyNames = ["startDate", "endDate", "extendByDays", "extendReasonCode", "requestIdentifier", "productId",
                         "storefrontCountryCodes", "notificationType", "notificationSubtype", "transactionId", "onlyFailures",
                         "customerConsented", "sampleContentProvided", "deliveryStatus", "consumptionStatus", "playTime"]
        var answered: [Int: Int] = [:]
        for round in 0..<1500 {
            let id = pick(ids)
            let (method, path): (String, String) = pick([
                ("GET", "/inApps/v1/transactions/\(id)"), ("GET", "/inApps/v1/history/\(id)"), ("GET", "/inApps/v2/history/\(id)"),
                ("GET", "/inApps/v1/subscriptions/\(id)"), ("GET", "/inApps/v2/refund/lookup/\(id)"),
                ("PUT", "/inApps/v1/subscriptions/extend/\(id)"), ("POST", "/inApps/v1/subscriptions/extend/mass"),
                ("GET", "/inApps/v1/subscriptions/extend/mass/\(id)/\(pick(Self.hostile))"),
                ("PUT", "/inApps/v1/transactions/consumption/\(id)"), ("POST", "/inApps/v1/notifications/history"),
                ("GET", "/inApps/v1/notifications/test/\(id)"), ("GET", "/inApps/v1/lookup/\(id)"),
            ])
            var query: [(name: String, value: String)] = []
            for _ in 0..<Int(random.next() % 4) { query.append((pick(queryNames), pick(Self.hostile))) }
            var body: [String: Any]?
            if method != "GET" {
                var object: [String: Any] = [:]
                for _ in 0..<Int(random.next() % 6) {
                    let name = pick(bodyNames)
                    let value: Any = random.next() % 2 == 0 ? pick(Self.hostileNumbers) : pick(Self.hostile) as Any
                    object[name] = value
                }
                body = object
            }
            let response = try await fixture.send(method, path, query: query, body: body)
            answered[response.status, default: 0] += 1
            #expect([200, 202, 400, 403, 404].contains(response.status), "round \(round): \(method) \(path) \(query) \(String(describing: body)) → \(response.status)")
            if response.status >= 400 {
                let code = try? ServerAPITests.object(response)["errorCode"] as? Int
                #expect(code.map { $0 / 10000 == response.status } == true,
                        "round \(round): \(method) \(path) → \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            }
        }
        // The rounds reached the endpoints, not only their first check.
        #expect(answered[200, default: 0] > 50, "\(answered)")
        #expect(answered[400, default: 0] > 300, "\(answered)")
    }
}
