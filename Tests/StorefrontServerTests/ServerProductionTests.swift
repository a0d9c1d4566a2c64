import Foundation
import StoreEngine
import StorefrontServer
import Testing
import TestSupport

/// What differs between Apple's environments, in process: Production's payloads carry the app's
/// Apple ID (`appAppleId`) and Sandbox's do not; Production retries a failed notification and
/// Sandbox sends it once. Apple's verifier checks the same over HTTP in StorefrontCLITests.
@Suite("ServerAPI: Production and Sandbox")
struct ServerProductionTests {
    typealias Fixture = ServerAPITests.Fixture

    /// The `data` (or `summary`) of each notification recorded, decoded without a verifier.
    static func bodies(_ store: Store) async throws -> [[String: Any]] {
        try await store.appStore.notifications().map { note in
            let payload = try ServerAPITests.payload(note.signedPayload)
            return try #require((payload["data"] ?? payload["summary"]) as? [String: Any])
        }
    }

    @Test("appAppleId: in Production's notifications (data and summary), app transaction and answers; never in Sandbox")
    func appAppleID() async throws {
        let fixture = try await Fixture()
        let sandbox = try await fixture.buy("monthly")
        try await fixture.store.testSession.set(.appAppleId, to: 1_234_567_890)
        #expect(try await Self.bodies(fixture.store).allSatisfy { $0["appAppleId"] == nil }, "Sandbox: none, whatever the setting")
        #expect(try await fixture.store.app.appTransaction().appAppleID == nil)

        _ = try await fixture.store.testSession.setSetting("environment", to: "Production")
        let before = try await fixture.store.appStore.notifications().count
        _ = try await fixture.buy("pro")
        _ = try await fixture.store.appStore.extendAllSubscribers(productID: "monthly", days: 3, reasonCode: 1,
                                                                  requestIdentifier: "everyone", storefrontCountryCodes: [])
        _ = try await fixture.store.appStore.requestTestNotification()
        let production = try await Self.bodies(fixture.store).dropFirst(before)
        #expect(production.count == 4, "ONE_TIME_CHARGE, RENEWAL_EXTENDED, its SUMMARY, TEST")
        #expect(production.allSatisfy { $0["appAppleId"] as? Int == 1_234_567_890 && $0["environment"] as? String == "Production" })

        let app = try await fixture.store.app.appTransaction()
        #expect(app.appAppleID == 1_234_567_890)
        let signed = try ServerAPITests.payload(app.jwsRepresentation)
        #expect(signed["appAppleId"] as? Int == 1_234_567_890 && signed["receiptType"] as? String == "Production")
        let history = try ServerAPITests.object(try await fixture.send("GET", "/inApps/v2/history/\(sandbox.id)"))
        #expect(history["appAppleId"] as? Int == 1_234_567_890)
        let statuses = try ServerAPITests.object(try await fixture.send("GET", "/inApps/v1/subscriptions/\(sandbox.id)"))
        #expect(statuses["appAppleId"] as? Int == 1_234_567_890)
    }

    @Test("appAppleId starts from a synced .storekit file's _applicationInternalID, or products.json's startingSettings")
    func appAppleIDFromCatalog() async throws {
        let storekit = """
            {
              "identifier" : "Synced", "nonRenewingSubscriptions" : [ ], "subscriptionGroups" : [ ],
              "products" : [ { "displayPrice" : "0.99", "familyShareable" : false, "internalID" : "6444000001",
                "localizations" : [ { "description" : "Pro", "displayName" : "Pro", "locale" : "en_US" } ],
                "productID" : "pro", "referenceName" : "Pro", "type" : "NonConsumable" } ],
              "settings" : { "_applicationInternalID" : "6444000000", "_developerTeamID" : "ABCDE12345" },
              "version" : { "major" : 4, "minor" : 0 }
            }
            """
        let products = """
            { "storefront": "USA", "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
              "startingSettings": { "applicationInternalID": "987654321" },
              "products": [ { "id": "pro", "type": "nonConsumable", "displayName": "Pro", "price": "0.99" } ] }
            """
        let unsynced = storekit.replacingOccurrences(of: "\"6444000000\"", with: "\"0\"")
        for (text, file, expected) in [(storekit, "Synced.storekit", Int64(6_444_000_000)), (products, "products.json", 987_654_321),
                                       (unsynced, "Unsynced.storekit", nil)] as [(String, String, Int64?)] {
            let folder = try TemporaryFolder(prefix: "storefront-app-apple-id")
            let catalog = try Catalog.parse(Array(text.utf8), file: file)
            let store = try Store(catalog: catalog, path: folder.path("store.sqlite"))
            #expect(try await store.testSession.value(.appAppleId) == expected, "\(file)")
        }
    }

    @Test("A failed delivery is retried in Production (an hour later first) and never in Sandbox, where Apple sends once")
    func retriesByEnvironment() async throws {
        for (environment, retried) in [("Production", true), ("Sandbox", false)] {
            let fixture = try await Fixture()
            _ = try await fixture.store.testSession.setSetting("environment", to: environment)
            let url = "http://127.0.0.1:9/appstore"
            _ = try await fixture.buy("pro")
            let first = try #require(try await fixture.store.appStore.nextNotification(for: url))
            #expect(first.due)
            try await fixture.store.appStore.recordAttempt(notificationID: first.notification.id, url: url, result: .noResponse)
            let again = try await fixture.store.appStore.nextNotification(for: url)
            #expect((again != nil) == retried, "\(environment)")
            if let again {
                #expect(again.notification.id == first.notification.id && !again.due, "waits an hour of store time")
                fixture.clock.advance(by: 3_600)
                #expect(try await fixture.store.appStore.nextNotification(for: url)?.due == true)
            }
        }
    }
}
