import Foundation
import StorefrontKitTest
import Synchronization
import Testing
@testable import StorefrontKit

/// Which store StoreKit code uses (`StoreContext+Choice.swift`): what is read outside a
/// session's scope follows the session made later, so a test never buys in the developer's store.
///
/// Tests here run beside other suites' sessions, so they bind the stores they compare with
/// `run` or build the values read outside a scope by hand; the whole flow, with the app's
/// store layer made before its session, is Examples/StoreApp's XCTest suite (one session at a time).
/// One at a time: a test that configures a store takes the listeners of another that makes sessions.
@Suite(.serialized) struct StoreChoiceTests {
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
        // Outside a scope the newest session answers, whichever test made it: another test's simulated
        // load error may answer first, so try until one loads.
        var outside: Product?
        for _ in 0..<50 where outside == nil {
            outside = try? await Product.products(for: [ID.goPro]).first
            if outside == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(try #require(outside).follows)
    }

    @Test func aProductLoadedFromTheDeveloperStoreBuysInTheSessionMadeAfter() async throws {
        let (developer, folder) = try developerStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // What `Product.products(for:)` hands out when no session exists yet.
        let engineProduct = try #require(try await developer.store.app.products().first { $0.id == ID.goPro })
        let product = Product(engine: engineProduct, context: developer, follows: true, storefrontCode: "USA", locale: "en_US")
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
        let box = Received()
        let mine = StorePaths()  // the store files of this test's sessions
        let listening = Task {
            await box.set(await first(of: updates, within: 60) { transaction in
                transaction.productID == ID.shopping && mine.paths.withLock { $0.contains(transaction.context.store.path) }
            })
        }
        defer { listening.cancel() }  // ends the sequence: it follows no more sessions
        var sessions: [SKTestSession] = []
        // Other suites make sessions too: buy in each new one until the listener hears of one.
        for _ in 0..<20 where await box.update == nil {
            let session = try SKTestSession(contentsOf: catalogURL)
            sessions.append(session)
            mine.paths.withLock { _ = $0.insert(session.storePath) }
            try await Task.sleep(for: .milliseconds(300))
            try await session.buyProduct(identifier: ID.shopping)
            try await Task.sleep(for: .milliseconds(700))
        }
        let update = try #require(await box.update)
        // The purchase of the session it moved to, as that session lists it.
        let session = try #require(sessions.first { $0.storePath == update.unsafePayloadValue.context.store.path })
        #expect(session.allTransactions().map(\.identifier) == [Int(update.unsafePayloadValue.id)])
    }

    @Test func aStoreConfiguredAfterTheSessionsEndedIsListenedToUntilTheNextSession() async throws {
        do { _ = try SKTestSession(contentsOf: catalogURL) }  // this process has had a session, now gone
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-configured-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/store.sqlite"
        try StorefrontKit.configure(catalog: catalogURL.path, store: path)
        // Read outside any scope, as a test of a configured store reads it.
        let updates = Transaction.updates
        let box = Received()
        let listening = Task {
            await box.set(await first(of: updates, within: 60) { $0.productID == ID.coins && $0.context.store.path == path })
        }
        defer { listening.cancel() }
        // Another process (here, another connection) buys in the configured store. Other suites make
        // sessions meanwhile, and each new one takes the listener: configure again, as such a test would.
        let elsewhere = try StorefrontKit.open(catalog: catalogURL.path, store: path, account: nil)
        for _ in 0..<20 where await box.update == nil {
            try StorefrontKit.configure(catalog: catalogURL.path, store: path)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await elsewhere.store.appStore.purchaseOutsideApp(ID.coins)
            try await Task.sleep(for: .milliseconds(700))
        }
        let update = try #require(await box.update)
        #expect(update.unsafePayloadValue.context.store.path == path)
        #expect(try StorefrontKit.storePath == path || StoreContext.latestSession != nil)
    }

    @Test func messagesReadOutsideAScopeMoveToEachNewSession() async throws {
        // Read before any of this test's sessions exists, as an app's store layer reads it at launch.
        let messages = Message.messages
        let heard = Mutex<Message?>(nil)
        let mine = StorePaths()
        let listening = Task {
            let message = await firstElement(of: messages, within: 60) { message in
                message.reason == .priceIncreaseConsent && mine.paths.withLock { $0.contains(message.context.store.path) }
            }
            heard.withLock { $0 = message }
        }
        defer { listening.cancel() }
        var sessions: [SKTestSession] = []
        for _ in 0..<20 where heard.withLock({ $0 }) == nil {
            let session = try SKTestSession(contentsOf: catalogURL)
            sessions.append(session)
            mine.paths.withLock { _ = $0.insert(session.storePath) }
            try await Task.sleep(for: .milliseconds(300))
            let bought = try await session.buyProduct(identifier: ID.monthly)
            try session.requestPriceIncreaseConsentForTransaction(identifier: Int(bought.id))
            try await Task.sleep(for: .milliseconds(700))
        }
        let message = try #require(heard.withLock { $0 })
        #expect(sessions.contains { $0.storePath == message.context.store.path })
    }
}

/// Store file paths, shared with a listener's filter.
private final class StorePaths: Sendable {
    let paths = Mutex<Set<String>>([])
}

/// What a listener heard, read while it still listens.
private actor Received {
    private(set) var update: VerificationResult<Transaction>?
    func set(_ update: VerificationResult<Transaction>?) { if let update { self.update = update } }
}
