import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// `Transaction.beginRefundRequest` and Family Sharing as the app sees them, with the App Store's
/// side played by the CLI in another process (the tester's second terminal).
@Suite(.serialized) struct RefundAndFamilyTests {
    func storefront(_ session: SKTestSession, _ arguments: [String]) async throws {
        let run = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath] + arguments)
        #expect(run.status == 0, "\(arguments): \(run.output)")
    }

    /// Xcode's test environment "always approves refund requests, and processes them immediately":
    /// a session's store does too (it waited for `refund-request approve`, unlike Xcode).
    @Test func aSessionApprovesARefundRequestAtOnceAsXcodeDoes() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            let bought = try result.payloadValue
            await bought.finish()
            Transaction.refundRequestSheetAction = .submit(.unintendedPurchase)
            defer { Transaction.refundRequestSheetAction = nil }
            #expect(try await bought.beginRefundRequest() == .success)
            #expect(await Transaction.currentEntitlement(for: ID.goPro) == nil, "refunded at once")
        }
    }

    @Test func aRefundRequestWaitsForTheAppStoreAndItsGrantArrivesOnUpdates() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        // The App Store decides later, as outside Xcode's test environment.
        try await storefront(session, ["settings", "set", "refundRequestOutcome", "wait"])
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            let bought = try result.payloadValue
            await bought.finish()

            // The customer closes the sheet: nothing is asked.
            Transaction.refundRequestSheetAction = .cancel
            #expect(try await bought.beginRefundRequest(in: nil) == .userCancelled)
            Transaction.refundRequestSheetAction = .submit(.unintendedPurchase)
            defer { Transaction.refundRequestSheetAction = nil }
            #expect(try await bought.beginRefundRequest() == .success)
            #expect(await Transaction.currentEntitlement(for: ID.goPro) != nil, "asked, not refunded: the App Store decides")
            await #expect(throws: Transaction.RefundRequestError.duplicateRequest) {
                try await Transaction.beginRefundRequest(for: bought.id, in: nil)
            }
            await #expect(throws: Transaction.RefundRequestError.failed) {
                try await Transaction.beginRefundRequest(for: 42, in: nil)
            }

            let listener = Listener(Transaction.updates)
            try await session.buyProduct(identifier: ID.shopping)  // a canary: the listener has taken its first look
            #expect(await listener.count(atLeast: 1, within: 20))
            try await storefront(session, ["refund-request", "approve", String(bought.id)])
            #expect(await listener.count(atLeast: 2, within: 20))
            let update = try #require(await listener.received.last).unsafePayloadValue
            #expect(update.id == bought.id && update.revocationDate != nil && update.revocationReason == .other)
            #expect(update.revocationType == .fullRefund && update.revocationPercentage == 100)
            #expect(await Transaction.currentEntitlement(for: ID.goPro) == nil)
        }
    }

    @Test func aProratedRefundReachesTheAppAsSignedWithItsShare() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            let bought = try result.payloadValue
            #expect(bought.revocationType == nil && bought.revocationPercentage == nil, "not refunded")
            await bought.finish()
            let listener = Listener(Transaction.updates)
            try await session.buyProduct(identifier: ID.shopping)  // a canary: the listener has taken its first look
            #expect(await listener.count(atLeast: 1, within: 20))
            try await storefront(session, ["refund", String(bought.id), "--prorated", "33.333"])
            #expect(await listener.count(atLeast: 2, within: 20))
            let update = try #require(await listener.received.last).unsafePayloadValue
            #expect(update.id == bought.id && update.revocationType == .proratedRefund)
            #expect(update.revocationPercentage == Decimal(string: "33.333"))
            let payload = try JSONSerialization.jsonObject(with: update.jsonRepresentation) as? [String: Any]
            #expect(payload?["revocationType"] as? String == "REFUND_PRORATED" && payload?["revocationPercentage"] as? Int == 33333)
        }
    }

    @Test func aFamilyPurchaseArrivesAsTheMembersOwnAndTheRefundTakesItBack() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let listener = Listener(Transaction.updates)
            try await session.buyProduct(identifier: ID.shopping)  // a canary: the listener has taken its first look
            #expect(await listener.count(atLeast: 1, within: 20))
            try await storefront(session, ["--account", "organizer@local", "accounts", "family", "create", "smiths"])
            try await storefront(session, ["accounts", "family", "add", "smiths", "tester@local"])
            try await storefront(session, ["--account", "organizer@local", "buy", ID.goPro])
            #expect(await listener.count(atLeast: 2, within: 20))
            let shared = try #require(await listener.received.last).unsafePayloadValue
            #expect(shared.productID == ID.goPro && shared.ownershipType == .familyShared)
            #expect(String(data: shared.jsonRepresentation, encoding: .utf8)?.contains("\"FAMILY_SHARED\"") == true)
            await shared.finish()
            #expect(try await Transaction.currentEntitlement(for: ID.goPro)?.payloadValue.ownershipType == .familyShared)
            // Only the purchaser may ask for a refund of it.
            await #expect(throws: Transaction.RefundRequestError.failed) { try await shared.beginRefundRequest() }

            let purchase = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath,
                                                    "--account", "organizer@local", "transactions", "--json"])
            let listed = try JSONSerialization.jsonObject(with: Data(purchase.output.utf8)) as? [String: Any]
            let id = try #require((listed?["transactions"] as? [[String: Any]])?.first?["id"] as? Int)
            try await storefront(session, ["--account", "organizer@local", "refund", String(id), "--reason", "developerIssue"])
            #expect(await listener.count(atLeast: 3, within: 20))
            let revoked = try #require(await listener.received.last).unsafePayloadValue
            #expect(revoked.id == shared.id && revoked.revocationReason == .developerIssue, "the purchaser's reason")
            #expect(revoked.revocationType == .familyRevocation && revoked.revocationPercentage == nil, "nothing refunded to a member")
            #expect(await Transaction.currentEntitlement(for: ID.goPro) == nil)
        }
    }
}
