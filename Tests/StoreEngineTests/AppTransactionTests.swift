import Foundation
import Testing
@testable import StoreEngine

/// `AppTransaction.shared`: the account's app purchase, signed like a transaction.
@Suite("app transaction")
struct AppTransactionTests {
    @Test("fields: bundle id, versions, first use as original purchase date, the transactions' appTransactionId")
    func fields() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let first = try await store.app.appTransaction()
            #expect(first.bundleID == fixture.catalog.bundleID)
            #expect(first.appVersion == "1.0" && first.originalAppVersion == "1.0")
            #expect(first.originalPurchaseDate == fixtureStart)
            #expect(first.environment == .xcode)
            fixture.clock.advance(ISODuration(days: 3))
            let bought = try await buy(store, "pro")
            let payload = try await store.app.verify(jws: try #require(bought.jwsRepresentation)).payload
            let again = try await store.app.appTransaction()
            #expect(payload["appTransactionId"] == .string(again.appTransactionID))
            #expect(again.appTransactionID == first.appTransactionID)
            #expect(again.originalPurchaseDate == fixtureStart, "the first use, not the latest")
            #expect(again.signedDate == fixtureStart.addingTimeInterval(3 * 86_400))
        }
    }

    @Test("signed with the store's x5c chain, with Apple's payload names; another account has its own id")
    func signed() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.environment, to: .sandbox)
            let app = try await store.app.appTransaction()
            let (header, payload) = try await store.app.verify(jws: try #require(app.jwsRepresentation))
            #expect(header["x5c"] != nil)
            #expect(payload["receiptType"] == .string("Sandbox"))
            #expect(payload["bundleId"] == .string(fixture.catalog.bundleID))
            #expect(payload["originalApplicationVersion"] == .string("1.0"))
            #expect(payload["originalPurchaseDate"] == .integer(fixtureStart.milliseconds))
            let other = try await fixture.open(account: "other@local").app.appTransaction()
            #expect(other.appTransactionID != app.appTransactionID)
            var edited = try #require(app.jwsRepresentation)
            edited.replaceSubrange(edited.index(edited.endIndex, offsetBy: -3)..<edited.endIndex, with: "AAA")
            await #expect(throws: VerificationFailure.self) { try await store.app.verify(jws: edited) }
        }
    }
}
