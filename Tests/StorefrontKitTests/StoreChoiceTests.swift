import Foundation
import StorefrontKitTest
import Testing
@testable import StorefrontKit

/// Which store StoreKit code uses (`StoreContext+Choice.swift`): what is read outside a
/// session's scope follows the session made later, so a test never buys in the developer's store.
///
/// Tests here run beside other suites' sessions, so they bind the stores they compare with
/// `run` or build the values read outside a scope by hand; the whole flow, with the app's
/// store layer made before its session, is Examples/StoreApp's XCTest suite (one session at a time).
@Suite struct StoreChoiceTests {
    /// A store file standing for the developer's own: what StorefrontKit opens with no session.
    private func developerStore() throws -> (StoreContext, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-developer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (try StorefrontKit.open(catalog: catalogURL.path, store: folder + "/store.sqlite", account: nil), folder)
    }

    @Test func productsReadOutsideAScopeFollowTheChoiceAndThoseInsideStay() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        let inside = try await session.run { try #require(try await Product.products(for: [ID.goPro]).first) }
        #expect(!inside.follows)
        let outside = try #require(try await Product.products(for: [ID.goPro]).first)
        #expect(outside.follows)
    }

    @Test func aProductLoadedFromTheDeveloperStoreBuysInTheSessionMadeAfter() async throws {
        let (developer, folder) = try developerStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // What `Product.products(for:)` hands out when no session exists yet.
        let engineProduct = try #require(try await developer.store.app.products().first { $0.id == ID.goPro })
        let product = Product(engine: engineProduct, context: developer, follows: true)
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            #expect(result.unsafePayloadValue.productID == ID.goPro)
        }
        #expect(session.allTransactions().map(\.productIdentifier) == [ID.goPro])
        #expect(try await developer.store.appStore.transactions().isEmpty)
    }

    @Test func aProductReadInsideAScopeStaysWithItsSession() async throws {
        let first = try SKTestSession(contentsOf: catalogURL)
        let product = try await first.run { try #require(try await Product.products(for: [ID.goPro]).first) }
        let second = try SKTestSession(contentsOf: catalogURL)
        try await second.run { _ = try await product.purchase() }
        #expect(first.allTransactions().map(\.productIdentifier) == [ID.goPro])
        #expect(second.allTransactions().isEmpty)
    }

    @Test func aListenerOutsideAScopeMovesToEachNewSession() async throws {
        // The stream the choice hands a listener read outside a scope: it follows `followedStore()`.
        let updates = Transaction.Transactions { StoreContext.following(scope: nil) { UpdatesMonitor.stream(context: $0) } }
        let listener = Listener(updates)
        var sessions: [SKTestSession] = []
        // Other suites make sessions too: buy in each new one until the listener hears of it.
        var heard = false
        for _ in 0..<20 where !heard {
            let session = try SKTestSession(contentsOf: catalogURL)
            sessions.append(session)
            try await Task.sleep(for: .milliseconds(200))
            try await session.buyProduct(identifier: ID.shopping)
            heard = await listener.count(atLeast: 1, within: 2)
        }
        #expect(heard)
        let update = try #require(await listener.received.first)
        // It came from one of this test's sessions, the one it was bought in, not from the developer's store.
        let path = update.unsafePayloadValue.context.store.path
        #expect(sessions.contains { $0.storePath == path })
        #expect(update.unsafePayloadValue.productID == ID.shopping)
    }
}
