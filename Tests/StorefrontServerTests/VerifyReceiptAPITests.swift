import Foundation
import StoreEngine
import StorefrontServer
import Testing
import TestSupport

/// Apple's legacy `verifyReceipt` in process: requests as a legacy backend sends them (a JSON
/// POST with `receipt-data`, `password`, `exclude-old-transactions`, no bearer token), routed
/// as the HTTP server routes them. Over HTTP, from a backend script, it is tested in StorefrontCLITests.
@Suite("VerifyReceiptAPI: Apple's legacy verifyReceipt endpoint")
struct VerifyReceiptAPITests {
    static let secret = "0123456789abcdef0123456789abcdef"

    struct Fixture {
        let folder: TemporaryFolder
        let clock: TestClock
        let store: Store
        let server: AppStoreServer

        init(environment: String = "Sandbox") async throws {
            folder = try TemporaryFolder(prefix: "storefront-verify-receipt")
            clock = TestClock(Date(timeIntervalSince1970: 1_767_225_600))  // 2026-01-01T00:00:00Z
            let catalog = try Catalog.parse(Array(ServerAPITests.catalogText.utf8), file: "catalog.json")
            store = try Store(catalog: catalog, path: folder.path("store.sqlite"), now: clock.closure)
            server = AppStoreServer(store: store, notifyURLs: [], log: { _ in })
            _ = try await store.testSession.setSetting("environment", to: environment)
        }

        /// The app's receipt now, base64, as an app sends it to its backend.
        func receipt() async throws -> String { Data(try await store.app.appReceipt()).base64EncodedString() }

        /// A POST as a legacy backend sends it: a JSON body, no Authorization header.
        func post(_ body: Any, path: String = "/sandbox/verifyReceipt", method: String = "POST") async throws -> [String: Any] {
            let bytes = [UInt8](try JSONSerialization.data(withJSONObject: body))
            let response = await server.respond(to: HTTPRequest(method: method, path: path,
                                                                 headers: ["Content-Type": "application/json"], body: bytes))
            #expect(response.status == 200, "verifyReceipt answers 200 whatever the status")
            return try ServerAPITests.object(response)
        }
    }

    @Test("a valid receipt: status 0, the environment, and the receipt's in_app purchases in Apple's string forms")
    func valid() async throws {
        let fixture = try await Fixture()
        let pro = try #require(try await fixture.store.app.buy("pro").outcome.transaction)
        let answer = try await fixture.post(["receipt-data": try await fixture.receipt()])
        #expect(answer["status"] as? Int == 0)
        #expect(answer["environment"] as? String == "Sandbox")
        let receipt = try #require(answer["receipt"] as? [String: Any])
        #expect(receipt["bundle_id"] as? String == fixture.store.catalog.bundleID)
        #expect(receipt["receipt_type"] as? String == "ProductionSandbox")
        #expect(receipt["application_version"] as? String == "1.0")
        #expect(receipt["original_application_version"] as? String == "1.0")
        #expect(receipt["receipt_creation_date"] as? String == "2026-01-01 00:00:00 Etc/GMT")
        #expect(receipt["receipt_creation_date_ms"] as? String == "1767225600000")
        #expect(receipt["receipt_creation_date_pst"] as? String == "2025-12-31 16:00:00 America/Los_Angeles")
        let inApp = try #require(receipt["in_app"] as? [[String: Any]])
        #expect(inApp.count == 1)
        #expect(inApp.first?["transaction_id"] as? String == String(pro.id))
        #expect(inApp.first?["original_transaction_id"] as? String == String(pro.originalID))
        #expect(inApp.first?["product_id"] as? String == "pro")
        #expect(inApp.first?["quantity"] as? String == "1")
        #expect(inApp.first?["purchase_date_ms"] as? String == String(pro.purchaseDate.milliseconds))
        #expect(inApp.first?["is_trial_period"] as? String == "false")
        #expect(answer["latest_receipt_info"] == nil && answer["pending_renewal_info"] == nil && answer["latest_receipt"] == nil,
                "only for receipts with auto-renewable subscriptions")
    }

    @Test("Apple's status codes: 21000 not a JSON POST, 21002 malformed, 21003 not this store's, 21007, 21008, 21010")
    func statuses() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.app.buy("pro")
        let receipt = try await fixture.receipt()
        func status(_ body: Any, path: String = "/sandbox/verifyReceipt", method: String = "POST") async throws -> Int? {
            try await fixture.post(body, path: path, method: method)["status"] as? Int
        }
        #expect(try await status(["receipt-data": receipt], method: "GET") == 21000)
        let notJSON = await fixture.server.respond(to: HTTPRequest(method: "POST", path: "/verifyReceipt", body: Array("{".utf8)))
        #expect(try ServerAPITests.object(notJSON)["status"] as? Int == 21000)
        #expect(try await status([:] as [String: Any]) == 21002, "no receipt-data")
        #expect(try await status(["receipt-data": "%%% not base64"]) == 21002)
        #expect(try await status(["receipt-data": Data("hello".utf8).base64EncodedString()]) == 21002, "not PKCS#7")

        // Signed by another store's certificate authority.
        let other = try await Fixture()
        _ = try await other.store.app.buy("pro")
        #expect(try await status(["receipt-data": try await other.receipt()]) == 21003)

        // A sandbox receipt at the production endpoint, with Apple's retry: the sandbox's answers 0.
        let production = try await fixture.post(["receipt-data": receipt], path: "/verifyReceipt")
        #expect(production["status"] as? Int == 21007)
        #expect(try await status(["receipt-data": receipt]) == 0)
        // A production receipt at the sandbox endpoint.
        _ = try await fixture.store.testSession.setSetting("environment", to: "Production")
        let productionReceipt = try await fixture.receipt()
        #expect(try await status(["receipt-data": productionReceipt]) == 21008)
        #expect(try await status(["receipt-data": productionReceipt], path: "/verifyReceipt") == 0)

        // The purchases' account gone from the store file.
        let history = try await fixture.store.appStore.transactions()
        for transaction in history { try await fixture.store.appStore.deleteTransaction(transaction.id) }
        #expect(try await status(["receipt-data": receipt]) == 21010)
    }

    @Test("a receipt with a subscription: the shared secret (21004), latest_receipt_info, latest_receipt, pending_renewal_info")
    func subscriptions() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.testSession.setSetting("sharedSecret", to: Self.secret.uppercased())
        let monthly = try #require(try await fixture.store.app.buy("monthly").outcome.transaction)
        let receipt = try await fixture.receipt()
        #expect(try await fixture.post(["receipt-data": receipt])["status"] as? Int == 21004, "no password")
        #expect(try await fixture.post(["receipt-data": receipt, "password": "feedface"])["status"] as? Int == 21004)

        fixture.clock.set(Date(timeIntervalSince1970: 1_767_225_600 + 75 * 86_400))  // two renewals later
        _ = try await fixture.store.appStore.processRenewals()
        try await fixture.store.appStore.setAutoRenew(groupID: "premium", false)
        let answer = try await fixture.post(["receipt-data": receipt, "password": Self.secret])
        #expect(answer["status"] as? Int == 0)
        let inApp = try #require((answer["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]])
        #expect(inApp.map { $0["transaction_id"] as? String } == [String(monthly.id)], "the receipt as it was sent")
        let latest = try #require(answer["latest_receipt_info"] as? [[String: Any]])
        #expect(latest.count == 3, "the purchase and two renewals made since: \(latest)")
        #expect(Set(latest.compactMap { $0["original_transaction_id"] as? String }) == [String(monthly.originalID)])
        #expect(latest.allSatisfy { $0["expires_date_ms"] is String && $0["web_order_line_item_id"] is String })
        #expect(latest.allSatisfy { $0["subscription_group_identifier"] as? String == "premium" })
        #expect(latest.allSatisfy { $0["in_app_ownership_type"] as? String == "PURCHASED" })
        let renewal = try #require(answer["pending_renewal_info"] as? [[String: Any]])
        #expect(renewal.count == 1)
        #expect(renewal.first?["auto_renew_status"] as? String == "0")
        #expect(renewal.first?["auto_renew_product_id"] as? String == "monthly")
        #expect(renewal.first?["original_transaction_id"] as? String == String(monthly.originalID))

        // latest_receipt is a receipt of today, which verifies in turn and lists all three.
        let latestReceipt = try #require(answer["latest_receipt"] as? String)
        let again = try await fixture.post(["receipt-data": latestReceipt, "password": Self.secret])
        #expect(((again["receipt"] as? [String: Any])?["in_app"] as? [Any])?.count == 3)

        let newest = try await fixture.post(["receipt-data": receipt, "password": Self.secret, "exclude-old-transactions": true])
        let only = try #require(newest["latest_receipt_info"] as? [[String: Any]])
        #expect(only.count == 1, "exclude-old-transactions: the newest renewal only")
        #expect(only.first?["transaction_id"] as? String == latest.compactMap { $0["transaction_id"] as? String }.max { Int64($0)! < Int64($1)! })
    }

    @Test("the password is not checked for a receipt without subscriptions, nor when no shared secret is on file")
    func noSecretNeeded() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.testSession.setSetting("sharedSecret", to: Self.secret)
        _ = try await fixture.store.app.buy("pro")
        #expect(try await fixture.post(["receipt-data": try await fixture.receipt(), "password": "wrong"])["status"] as? Int == 0)
        _ = try await fixture.store.app.buy("monthly")
        #expect(try await fixture.post(["receipt-data": try await fixture.receipt(), "password": "wrong"])["status"] as? Int == 21004)
        _ = try await fixture.store.testSession.setSetting("sharedSecret", to: "")
        #expect(try await fixture.post(["receipt-data": try await fixture.receipt()])["status"] as? Int == 0)
    }
}
