import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// `SKPaymentQueue`: payments from `purchasing` to `purchased` or `failed`, finishing, restore,
/// and what the store's conditions make of a payment.
@Suite struct SKPaymentQueueTests {
    /// The descriptors of this process that name the file at `path` (or name it deleted).
    private static func descriptors(naming path: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
            return target.hasPrefix(path)
        }
    }

    @Test func anEndedSessionsDefaultQueueLetsItsStoreClose() async throws {
        var path = ""
        do {
            let session = try SKTestSession(contentsOf: catalogURL)
            path = session.storePath
            try await session.run {
                let queue = SKPaymentQueue.default()
                let observer = RecordingObserver()
                queue.add(observer)  // the queue now watches the session's store
                let product = try #require(try await loadSKProducts([ID.shopping]).first)
                queue.add(SKPayment(product: product))
                #expect(await observer.wait { $0.contains(.removed([ID.shopping])) })
                #expect(!Self.descriptors(naming: path).isEmpty, "the store is open while the session lives")
            }
        }
        // The session is gone; its queue, watcher and store with it (a test process makes hundreds).
        var open = Self.descriptors(naming: path)
        for _ in 0..<50 where !open.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            open = Self.descriptors(naming: path)
        }
        #expect(open.isEmpty, "descriptors still open on the ended session's store: \(open)")
    }

    @Test func aPurchaseGoesPurchasingThenPurchasedOnTheMainQueueAndFinishingLeavesNothingUnfinished() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let product = try #require(try await loadSKProducts([ID.shopping]).first)
            queue.add(SKPayment(product: product))
            #expect(await observer.wait { $0.contains(.removed([ID.shopping])) })
            let states = observer.seen.filter { $0.product == ID.shopping }
            #expect(states.map(\.state) == [.purchasing, .purchased])
            #expect(states.allSatisfy { $0.onMainQueue })
            #expect(states[0].identifier == nil)
            let identifier = try #require(states[1].identifier)
            #expect(await Array(Transaction.unfinished).isEmpty, "finishTransaction finished it in the store")
            let entitlement = try #require(await Transaction.currentEntitlement(for: ID.shopping)).unsafePayloadValue
            #expect(String(entitlement.id) == identifier)
            #expect(queue.transactions.isEmpty)
        }
    }

    @Test func failuresCarryStoreKit1sErrorCodes() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let unknown = SKMutablePayment()
            unknown.productIdentifier = "com.example.nosuch"
            queue.add(unknown)
            #expect(await observer.waitFor("com.example.nosuch", .failed)?.errorCode == .storeProductNotAvailable)

            let coins = try #require(try await loadSKProducts([ID.coins]).first)
            let tooMany = SKMutablePayment(product: coins)
            tooMany.quantity = 11
            queue.add(tooMany)
            #expect(await observer.waitFor(ID.coins, .failed)?.errorCode == .paymentInvalid)

            try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
            let goPro = try #require(try await loadSKProducts([ID.goPro]).first)
            queue.add(SKPayment(product: goPro))
            #expect(await observer.waitFor(ID.goPro, .failed)?.errorCode == .paymentNotAllowed)
            try await session.setSimulatedError(nil, forAPI: .purchase)
            #expect(await Array(Transaction.unfinished).isEmpty)
            #expect(await Array(Transaction.all).isEmpty, "nothing was charged")
        }
    }

    @Test func canMakePaymentsFollowsTheStoresSetting() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            #expect(SKPaymentQueue.canMakePayments())
            try await StoreContext.resolve().store.testSession.set(.canMakePayments, to: false)
            #expect(!SKPaymentQueue.canMakePayments())
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let payment = SKMutablePayment()
            payment.productIdentifier = ID.shopping
            queue.add(payment)
            #expect(await observer.waitFor(ID.shopping, .failed)?.errorCode == .paymentNotAllowed)
        }
    }

    @Test func restoreBringsBackNonConsumablesAndSubscriptionsOnlyThenSaysItFinished() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        for product in [ID.shopping, ID.coins, "com.example.storefront.seasonpass", ID.monthly] {
            let bought = try await session.buyProduct(identifier: product)
            await bought.finish()
        }
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            queue.restoreCompletedTransactions()
            #expect(await observer.wait { $0.contains(.restoreFinished) })
            let restored = observer.seen.filter { $0.state == .restored }
            #expect(Set(restored.map(\.product)) == [ID.shopping, ID.monthly])
            #expect(restored.allSatisfy { $0.originalIdentifier != nil && $0.originalIdentifier == $0.identifier })
            let finishedIndex = try #require(observer.events.firstIndex(of: .restoreFinished))
            let restoredIndex = try #require(observer.events.firstIndex { if case .updated(let list) = $0 { list.contains { $0.state == .restored } } else { false } })
            #expect(restoredIndex < finishedIndex, "every restored transaction comes before the finish")
        }
    }

    @Test func aRestoreErrorReachesTheObserver() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .appStoreSync)
        await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            queue.restoreCompletedTransactions()
            #expect(await observer.wait { $0.contains(.restoreFailed(.cloudServiceNetworkConnectionFailed)) })
            #expect(!observer.events.contains(.restoreFinished))
        }
    }

    @Test func restoreWithAnApplicationUsernameBringsOnlyItsPurchases() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        let user = UUID()
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let products = try await loadSKProducts([ID.shopping, ID.goPro])
            let mine = SKMutablePayment(product: try #require(products.first { $0.productIdentifier == ID.shopping }))
            mine.applicationUsername = user.uuidString
            queue.add(mine)
            queue.add(SKPayment(product: try #require(products.first { $0.productIdentifier == ID.goPro })))
            #expect(await observer.wait { events in events.filter { if case .removed = $0 { true } else { false } }.count == 2 })
            let bought = try #require(await Transaction.latest(for: ID.shopping)).unsafePayloadValue
            #expect(bought.appAccountToken == user, "a UUID applicationUsername is the transaction's appAccountToken")
            queue.restoreCompletedTransactions(withApplicationUsername: user.uuidString)
            #expect(await observer.wait { $0.contains(.restoreFinished) })
            #expect(observer.seen.filter { $0.state == .restored }.map(\.product) == [ID.shopping])
        }
    }

    @Test func theStorefrontIsTheStoresAndItsChangeReachesObserversAndTheDelegate() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        session.askToBuyEnabled = true
        await session.run {
            let queue = SKPaymentQueue.default()
            #expect(queue.storefront?.countryCode == "USA" && queue.storefront?.identifier == "143441")
            let observer = RecordingObserver()
            let delegate = StopOnStorefrontChange()
            queue.delegate = delegate
            queue.add(observer)
            defer { queue.remove(observer) }
            let payment = SKMutablePayment()
            payment.productIdentifier = ID.shopping
            queue.add(payment)
            #expect(await observer.waitFor(ID.shopping, .deferred) != nil)
            session.storefront = "GBR"
            #expect(await observer.wait { $0.contains(.storefrontChanged) })
            #expect(await observer.waitFor(ID.shopping, .failed)?.errorCode == .storeProductNotAvailable)
            #expect(delegate.askedAbout == ["GBR"])
            #expect(queue.storefront?.countryCode == "GBR")
        }
    }
}

/// A test double of an `SKPaymentQueueDelegate` that ends every waiting transaction when the storefront changes.
final class StopOnStorefrontChange: NSObject, SKPaymentQueueDelegate, @unchecked Sendable {
    private(set) var askedAbout: [String] = []  // written and read on the main queue's turn only
    func paymentQueue(_ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction,
                      in newStorefront: SKStorefront) -> Bool {
        askedAbout.append(newStorefront.countryCode)
        return false
    }
}
