import Foundation
import StoreEngine
import StorefrontServer
import Testing
import TestSupport

/// The App Store Server API answered in process: a request routed through
/// ``AppStoreServer/respond(to:)`` as the HTTP server routes it, no socket, no child process.
/// Over HTTP, with Apple's library as the client, it is tested in StorefrontCLITests.
@Suite("ServerAPI: the App Store Server API in process")
struct ServerAPITests {
    static let catalogText = """
        {
          "storefront": "USA",
          "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
          "subscriptionGroups": [
            { "id": "premium", "displayName": "Premium", "subscriptions": [
              { "id": "monthly", "displayName": "Monthly", "price": "4.99", "period": "P1M", "level": 1 } ] }
          ],
          "products": [
            { "id": "pro", "type": "nonConsumable", "displayName": "Pro", "price": "9.99" },
            { "id": "coins", "type": "consumable", "displayName": "Coins", "price": "0.99" }
          ]
        }
        """

    /// A store file of its own with a registered Server API key, and the server over it.
    struct Fixture {
        let folder: TemporaryFolder
        let clock: TestClock
        let store: Store
        let server: AppStoreServer
        let key: SigningKey
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"

        init() async throws {
            folder = try TemporaryFolder(prefix: "storefront-server-tests")
            clock = TestClock(Date(timeIntervalSince1970: 1_767_225_600))  // 2026-01-01T00:00:00Z
            let catalog = try Catalog.parse(Array(ServerAPITests.catalogText.utf8), file: "catalog.json")
            store = try Store(catalog: catalog, path: folder.path("store.sqlite"), now: clock.closure)
            server = AppStoreServer(store: store, notifyURLs: [], log: { _ in })
            // As a backend's tests run it: signed data and notifications of the Sandbox environment.
            _ = try await store.testSession.setSetting("environment", to: "Sandbox")
            key = try SigningKey.generate()
            try await store.appStore.addAPIKey(keyID: key.keyID, issuerID: issuer, publicKeyPEM: key.publicKeyPEM)
        }

        /// A bearer token as a backend makes one: ES256, the key's id, Apple's audience, the app's bundle id.
        func token(bundleID: String? = nil, lifetime: Int = 1200) throws -> String {
            let now = Int(Date().timeIntervalSince1970)
            return try key.sign(.object(["iss": .string(issuer), "iat": .integer(now), "exp": .integer(now + lifetime),
                                         "aud": .string("appstoreconnect-v1"),
                                         "bid": .string(bundleID ?? store.catalog.bundleID)]))
        }

        /// Routes one request with a good token (or the `authorization` header given).
        func send(_ method: String, _ path: String, query: [(name: String, value: String)] = [], body: Any? = nil,
                  authorization: String? = nil) async throws -> HTTPResponse {
            var headers = ["Authorization": try authorization ?? "Bearer \(token())"]
            if body != nil { headers["Content-Type"] = "application/json" }
            let bytes = try body.map { [UInt8](try JSONSerialization.data(withJSONObject: $0)) } ?? []
            return await server.respond(to: HTTPRequest(method: method, path: path, query: query, headers: headers, body: bytes))
        }

        func buy(_ productID: String) async throws -> Transaction {
            try #require(try await store.app.buy(productID).outcome.transaction)
        }
    }

    /// The body as a JSON object.
    static func object(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(response.body))
        return try #require(value as? [String: Any], "not a JSON object: \(String(decoding: response.body, as: UTF8.self))",
                            sourceLocation: sourceLocation)
    }

    /// A compact JWS's payload, undecoded by any verifier (the engine's tests check the signatures).
    static func payload(_ jws: Any?, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let text = try #require(jws as? String, sourceLocation: sourceLocation)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3, sourceLocation: sourceLocation)
        let bytes = try #require(Base64URL.decode(parts[1]), sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], sourceLocation: sourceLocation)
    }

    /// Apple's error body: (HTTP status, errorCode).
    static func error(_ response: HTTPResponse) throws -> (Int, Int?) {
        (response.status, try object(response)["errorCode"] as? Int)
    }

    // MARK: - Transactions

    @Test("Get Transaction Info: the signed transaction of any account; Apple's errors for a bad or unknown id")
    func transactionInfo() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let response = try await fixture.send("GET", "/inApps/v1/transactions/\(pro.id)")
        #expect(response.status == 200)
        #expect(response.headers.contains { $0.0 == "Content-Type" && $0.1 == "application/json" })
        let info = try Self.payload(try Self.object(response)["signedTransactionInfo"])
        #expect(info["transactionId"] as? String == String(pro.id))
        #expect(info["productId"] as? String == "pro")
        #expect(info["bundleId"] as? String == fixture.store.catalog.bundleID)
        #expect(info["type"] as? String == "Non-Consumable")
        #expect(info["price"] as? Int == 9990)
        #expect(info["currency"] as? String == "USD")

        #expect(try Self.error(try await fixture.send("GET", "/inApps/v1/transactions/12ab")) == (400, 4000006))
        #expect(try Self.error(try await fixture.send("GET", "/inApps/v1/transactions/1999999999")) == (404, 4040010))
        #expect(try Self.error(try await fixture.send("GET", "/inApps/v9/nowhere/1")) == (404, 4040000))
    }

    @Test("Get Transaction History: pages of 20 in id order, each page's revision leading to the next; filters and sort")
    func historyPaging() async throws {
        let fixture = try await Fixture()
        var bought: [Int64] = []
        for _ in 0..<23 { bought.append(try await fixture.buy("coins").id) }
        bought.append(try await fixture.buy("pro").id)

        var ids: [String] = []
        var revision: String?
        var pages = 0
        repeat {
            let response = try await fixture.send("GET", "/inApps/v2/history/\(bought[0])",
                                                  query: revision.map { [("revision", $0)] } ?? [])
            #expect(response.status == 200)
            let page = try Self.object(response)
            let signed = try #require(page["signedTransactions"] as? [Any])
            ids += try signed.map { try Self.payload($0)["transactionId"] as? String ?? "?" }
            #expect(page["bundleId"] as? String == fixture.store.catalog.bundleID)
            #expect(page["environment"] as? String == "Sandbox")
            pages += 1
            #expect(signed.count == (pages == 1 ? 20 : 4))
            #expect(page["hasMore"] as? Bool == (pages == 1))
            revision = page["hasMore"] as? Bool == true ? page["revision"] as? String : nil
        } while revision != nil && pages < 5
        #expect(pages == 2)
        #expect(ids == bought.map(String.init))

        let descending = try Self.object(try await fixture.send("GET", "/inApps/v2/history/\(bought[0])",
                                                                query: [("sort", "DESCENDING"), ("productType", "NON_CONSUMABLE")]))
        let filtered = try (descending["signedTransactions"] as? [Any] ?? []).map { try Self.payload($0)["productId"] as? String }
        #expect(filtered == ["pro"])
        #expect(try Self.error(try await fixture.send("GET", "/inApps/v2/history/\(bought[0])", query: [("sort", "SIDEWAYS")]))
                == (400, 4000021))
        #expect(try Self.error(try await fixture.send("GET", "/inApps/v2/history/\(bought[0])", query: [("revision", "not-a-revision")]))
                == (400, 4000005))
        #expect(try Self.error(try await fixture.send("GET", "/inApps/v2/history/\(bought[0])", query: [("productType", "GADGET")]))
                == (400, 4000022))
    }

    // MARK: - Subscriptions

    @Test("Get All Subscription Statuses: one group, its last transaction and renewal info; the status filter")
    func subscriptionStatuses() async throws {
        let fixture = try await Fixture()
        let monthly = try await fixture.buy("monthly")
        let all = try Self.object(try await fixture.send("GET", "/inApps/v1/subscriptions/\(monthly.id)"))
        let groups = try #require(all["data"] as? [[String: Any]])
        #expect(groups.map { $0["subscriptionGroupIdentifier"] as? String } == ["premium"])
        let last = try #require((groups.first?["lastTransactions"] as? [[String: Any]])?.first)
        #expect(last["status"] as? Int == 1)
        #expect(last["originalTransactionId"] as? String == String(monthly.originalID))
        #expect(try Self.payload(last["signedTransactionInfo"])["productId"] as? String == "monthly")
        let renewal = try Self.payload(last["signedRenewalInfo"])
        #expect(renewal["autoRenewStatus"] as? Int == 1)
        #expect(renewal["autoRenewProductId"] as? String == "monthly")

        let expired = try Self.object(try await fixture.send("GET", "/inApps/v1/subscriptions/\(monthly.id)", query: [("status", "2")]))
        #expect((expired["data"] as? [Any])?.isEmpty == true, "status=2 leaves out the active subscription")
        #expect(try Self.error(try await fixture.send("GET", "/inApps/v1/subscriptions/\(monthly.id)", query: [("status", "9")]))
                == (400, 4000031))
    }

    @Test("Extend a Subscription Renewal Date: the new expiration date, 1–90 days, a reason code, an active subscription")
    func extend() async throws {
        let fixture = try await Fixture()
        let monthly = try await fixture.buy("monthly")
        let expiration = try #require(monthly.expirationDate)
        let terms: [String: Any] = ["extendByDays": 7, "extendReasonCode": 1, "requestIdentifier": "r-1"]
        let response = try await fixture.send("PUT", "/inApps/v1/subscriptions/extend/\(monthly.originalID)", body: terms)
        #expect(response.status == 200)
        let extended = try Self.object(response)
        #expect(extended["success"] as? Bool == true)
        #expect(extended["originalTransactionId"] as? String == String(monthly.originalID))
        let effective = expiration.addingTimeInterval(7 * 86_400)
        #expect(extended["effectiveDate"] as? Int == Int((effective.timeIntervalSince1970 * 1000).rounded()))
        let status = try #require(try await fixture.store.app.subscriptionStatuses().first)
        #expect(status.transaction.expirationDate == effective)

        var tooMany = terms
        tooMany["extendByDays"] = 91
        #expect(try Self.error(try await fixture.send("PUT", "/inApps/v1/subscriptions/extend/\(monthly.originalID)", body: tooMany))
                == (400, 4000009))
        var badReason = terms
        badReason["extendReasonCode"] = 4
        #expect(try Self.error(try await fixture.send("PUT", "/inApps/v1/subscriptions/extend/\(monthly.originalID)", body: badReason))
                == (400, 4000010))
        #expect(try Self.error(try await fixture.send("PUT", "/inApps/v1/subscriptions/extend/1999999999", body: terms))
                == (404, 4040005))
        let pro = try await fixture.buy("pro")
        #expect(try Self.error(try await fixture.send("PUT", "/inApps/v1/subscriptions/extend/\(pro.id)", body: terms))
                == (404, 4040005), "not a subscription")
    }

    /// The server refuses exactly what the engine's face refuses (``FaceValidation``), with
    /// Apple's codes: the limits are the engine's, not a copy the server keeps.
    @Test("extensions: the days and reasons the server refuses are the ones the engine's face refuses")
    func extensionLimitsAreTheEngines() async throws {
        let fixture = try await Fixture()
        let monthly = try await fixture.buy("monthly")
        for (days, reason) in [(0, 0), (1, 0), (90, 3), (91, 1), (-5, 2), (7, 4), (7, -1), (365, 0)] {
            let refusal: InputError? = {
                do throws(InputError) { try FaceValidation.checkExtension(days: days, reasonCode: reason); return nil }
                catch { return error }
            }()
            let terms: [String: Any] = ["extendByDays": days, "extendReasonCode": reason, "requestIdentifier": "r-\(days)-\(reason)"]
            let single = try await fixture.send("PUT", "/inApps/v1/subscriptions/extend/\(monthly.originalID)", body: terms)
            var massTerms = terms
            massTerms["productId"] = "monthly"
            let mass = try await fixture.send("POST", "/inApps/v1/subscriptions/extend/mass", body: massTerms)
            let wanted: (Int, Int?)? = switch refusal {
            case .invalidExtendByDays?: (400, 4000009)
            case .invalidExtendReasonCode?: (400, 4000010)
            default: nil
            }
            for response in [single, mass] {
                if let wanted {
                    #expect(try Self.error(response) == wanted, "\(days) days, reason \(reason)")
                } else {
                    // Accepted as input (the App Store may still find the subscription ineligible: 403).
                    #expect(response.status == 200 || response.status == 403,
                            "\(days) days, reason \(reason): \(String(decoding: response.body, as: UTF8.self))")
                }
            }
        }
        // A face called without the server meets the same refusal.
        await #expect(throws: InputError.invalidExtendByDays(91)) {
            try await fixture.store.appStore.extendSubscription(originalTransactionID: monthly.originalID, days: 91)
        }
    }

    // MARK: - Refunds and consumption

    @Test("Get Refund History: only the revoked transactions of the customer")
    func refundHistory() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let coins = try await fixture.buy("coins")
        let none = try Self.object(try await fixture.send("GET", "/inApps/v2/refund/lookup/\(coins.id)"))
        #expect((none["signedTransactions"] as? [Any])?.isEmpty == true)
        #expect(none["hasMore"] as? Bool == false)
        _ = try await fixture.store.appStore.refund(pro.id)
        let refunds = try Self.object(try await fixture.send("GET", "/inApps/v2/refund/lookup/\(coins.id)"))
        let revoked = try (refunds["signedTransactions"] as? [Any] ?? []).map { try Self.payload($0) }
        #expect(revoked.map { $0["transactionId"] as? String } == [String(pro.id)])
        #expect(revoked.first?["revocationDate"] != nil)
    }

    @Test("Send Consumption Information: 202 with no body for a known transaction and Apple's request; else Apple's errors")
    func consumption() async throws {
        let fixture = try await Fixture()
        let coins = try await fixture.buy("coins")
        let accepted = try await fixture.send("PUT", "/inApps/v1/transactions/consumption/\(coins.id)",
                                              body: ServerTransactionEndpointTests.consumptionV1)
        #expect(accepted.status == 202)
        #expect(accepted.body.isEmpty)
        let notObject = await fixture.server.respond(to: HTTPRequest(
            method: "PUT", path: "/inApps/v1/transactions/consumption/\(coins.id)",
            headers: ["authorization": "Bearer \(try fixture.token())"], body: Array("[1]".utf8)))
        #expect(try Self.error(notObject) == (400, 4000000))
        #expect(try Self.error(try await fixture.send("PUT", "/inApps/v1/transactions/consumption/1999999999", body: [:] as [String: Any]))
                == (404, 4040010))
    }

    // MARK: - Notifications

    @Test("Request a Test Notification, then read it by its token; Notification History filters by type and pages")
    func notifications() async throws {
        let fixture = try await Fixture()
        let requested = try Self.object(try await fixture.send("POST", "/inApps/v1/notifications/test"))
        let token = try #require(requested["testNotificationToken"] as? String)
        let test = try Self.object(try await fixture.send("GET", "/inApps/v1/notifications/test/\(token)"))
        let payload = try Self.payload(test["signedPayload"])
        #expect(payload["notificationType"] as? String == "TEST")
        #expect((test["sendAttempts"] as? [Any])?.isEmpty == true, "nothing sent: the server was never started")
        #expect(try Self.error(try await fixture.send("GET", "/inApps/v1/notifications/test/unknown")) == (404, 4040008))

        _ = try await fixture.buy("pro")
        _ = try await fixture.buy("monthly")
        // Apple's window reaches 30 days back from today (the store's 2026-01-01) in the sandbox, no further.
        let window: [String: Any] = ["startDate": 1_767_225_600_000 - 30 * 86_400_000, "endDate": 4_102_444_800_000]
        let history = try Self.object(try await fixture.send("POST", "/inApps/v1/notifications/history", body: window))
        let types = try (history["notificationHistory"] as? [[String: Any]] ?? [])
            .map { try Self.payload($0["signedPayload"])["notificationType"] as? String }
        #expect(types == ["TEST", "ONE_TIME_CHARGE", "SUBSCRIBED"])
        #expect(history["hasMore"] as? Bool == false)
        #expect(history["paginationToken"] == nil)

        var subscribed = window
        subscribed["notificationType"] = "SUBSCRIBED"
        let filtered = try Self.object(try await fixture.send("POST", "/inApps/v1/notifications/history", body: subscribed))
        let only = try (filtered["notificationHistory"] as? [[String: Any]] ?? []).map { try Self.payload($0["signedPayload"]) }
        #expect(only.map { $0["notificationType"] as? String } == ["SUBSCRIBED"])
        #expect(only.first?["subtype"] as? String == "INITIAL_BUY")

        var bogus = window
        bogus["notificationType"] = "NOT_A_TYPE"
        #expect(try Self.error(try await fixture.send("POST", "/inApps/v1/notifications/history", body: bogus)) == (400, 4000018))
        #expect(try Self.error(try await fixture.send("POST", "/inApps/v1/notifications/history",
                                                      body: ["startDate": 10, "endDate": 5])) == (400, 4000013))
        #expect(try Self.error(try await fixture.send("POST", "/inApps/v1/notifications/history",
                                                      body: ["startDate": 1_767_225_600_000 - 31 * 86_400_000,
                                                             "endDate": 4_102_444_800_000])) == (400, 4000012))
        // Apple's newer types are filters like any other: none of them was sent here.
        for type in ["PRICE_CHANGE", "METADATA_UPDATE", "MIGRATION", "RESCIND_CONSENT"] {
            var newer = window
            newer["notificationType"] = type
            let found = try Self.object(try await fixture.send("POST", "/inApps/v1/notifications/history", body: newer))
            #expect((found["notificationHistory"] as? [Any])?.isEmpty == true, "\(type)")
        }
    }

    // MARK: - Bearer tokens

    @Test("Refused with 401 and no data: no token, not a bearer, a bad signature, another app's, an unknown key, a token living past an hour")
    func bearerRefusal() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let path = "/inApps/v1/transactions/\(pro.id)"
        let stranger = try SigningKey.generate()
        let strangers = try stranger.sign(.object(["iss": .string(fixture.issuer), "aud": .string("appstoreconnect-v1"),
                                                   "bid": .string(fixture.store.catalog.bundleID),
                                                   "exp": .integer(Int(Date().timeIntervalSince1970) + 600)]))
        let good = try fixture.token()
        let forged = good.dropLast(4) + (good.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        for authorization in ["", "Basic dXNlcjpwYXNz", "Bearer e30.e30.c2ln", "Bearer \(forged)",
                              "Bearer \(try fixture.token(bundleID: "com.example.other"))", "Bearer \(strangers)",
                              "Bearer \(try fixture.token(lifetime: 7200))"] {
            let response = try await fixture.send("GET", path, authorization: authorization)
            #expect(response.status == 401, "\(authorization.prefix(40))")
            #expect(String(decoding: response.body, as: UTF8.self) == "Unauthenticated\n")
        }
        #expect(try await fixture.send("GET", path, authorization: "Bearer \(good)").status == 200)
        // A removed key stops its tokens at once, also one checked before.
        #expect(try await fixture.store.appStore.removeAPIKey(fixture.key.keyID))
        #expect(try await fixture.send("GET", path, authorization: "Bearer \(good)").status == 401)
    }
}
