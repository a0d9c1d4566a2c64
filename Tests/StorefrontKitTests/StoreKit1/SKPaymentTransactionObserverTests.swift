import Foundation
import StoreEngine
import StorefrontKit
import StorefrontKitTest
import Testing

/// What reaches an `SKPaymentTransactionObserver` besides the app's own payments: what it left
/// unfinished, Ask to Buy decided elsewhere (in this process or another), renewals, purchases
/// made outside the app, family revocations, promoted purchases and redeemed codes.
@Suite struct SKPaymentTransactionObserverTests {
    @Test func anUnfinishedPurchaseComesBackAtTheNextLaunch() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let queue = SKPaymentQueue.default()
            let forgetful = RecordingObserver(finishes: false)  // "crashes" before finishing
            queue.add(forgetful)
            let product = try #require(try await loadSKProducts([ID.goPro]).first)
            queue.add(SKPayment(product: product))
            let bought = try #require(await forgetful.waitFor(ID.goPro, .purchased))
            queue.remove(forgetful)

            // The next launch: a new process opens the same store file.
            let catalog = try Catalog.load(contentsOf: catalogURL.path)
            let relaunched = SKPaymentQueue(context: StoreContext(store: try Store(catalog: catalog, path: session.storePath)))
            let observer = RecordingObserver()
            relaunched.add(observer)
            defer { relaunched.remove(observer) }
            let again = try #require(await observer.waitFor(ID.goPro, .purchased))
            #expect(again.identifier == bought.identifier)
            #expect(await observer.wait { $0.contains(.removed([ID.goPro])) })
            #expect(await Array(Transaction.unfinished).isEmpty)
        }
    }

    @Test func askToBuyIsDeferredThenPurchasedWhenApprovedOrFailedWhenDeclined() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let products = try await loadSKProducts([ID.shopping, ID.goPro])
            for product in products {
                let payment = SKMutablePayment(product: product)
                payment.simulatesAskToBuyInSandbox = true
                queue.add(payment)
            }
            #expect(await observer.waitFor(ID.shopping, .deferred) != nil)
            #expect(await observer.waitFor(ID.goPro, .deferred) != nil)
            let requests = session.allTransactions().filter(\.pendingAskToBuyConfirmation)
            let shopping = try #require(requests.first { $0.productIdentifier == ID.shopping })
            let goPro = try #require(requests.first { $0.productIdentifier == ID.goPro })
            try session.approveAskToBuyTransaction(identifier: shopping.identifier)
            try session.declineAskToBuyTransaction(identifier: goPro.identifier)
            let approved = try #require(await observer.waitFor(ID.shopping, .purchased))
            #expect(approved.identifier == String(shopping.identifier))
            #expect(await observer.waitFor(ID.goPro, .failed)?.errorCode == .paymentCancelled)
            #expect(observer.seen.filter { $0.product == ID.shopping }.map(\.state) == [.purchasing, .deferred, .purchased])
        }
    }

    @Test func anApprovalByTheCLIInAnotherProcessArrivesAsPurchased() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        session.askToBuyEnabled = true
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let product = try #require(try await loadSKProducts([ID.shopping]).first)
            queue.add(SKPayment(product: product))
            #expect(await observer.waitFor(ID.shopping, .deferred) != nil)
            let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
            let run = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath,
                                               "approve", String(request.identifier)])
            #expect(run.status == 0, "\(run.output)")
            let purchased = try #require(await observer.waitFor(ID.shopping, .purchased, seconds: 60))
            #expect(purchased.identifier == String(request.identifier) && purchased.onMainQueue)
            #expect(await observer.wait { $0.contains(.removed([ID.shopping])) })
            #expect(await Transaction.currentEntitlement(for: ID.shopping) != nil)
        }
    }

    @Test func purchasesMadeElsewhereAndRenewalsReachTheObserver() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let first = try await session.buyProduct(identifier: ID.monthly)  // on another device
            let delivered = try #require(await observer.waitFor(ID.monthly, .purchased))
            #expect(delivered.identifier == String(first.id))
            #expect(await observer.wait { $0.contains(.removed([ID.monthly])) })
            try session.forceRenewalOfSubscription(productIdentifier: ID.monthly)
            #expect(await observer.wait { _ in observer.seen.filter { $0.product == ID.monthly && $0.state == .purchased }.count == 2 })
            let renewal = try #require(observer.seen.last { $0.product == ID.monthly && $0.state == .purchased })
            #expect(renewal.identifier != delivered.identifier)
        }
    }

    @Test func aFamilySharedPurchaseTakenBackIsReportedAsRevokedOnce() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let store = try StoreContext.resolve().store
            let member = store.app.account
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            _ = try await store.testSession.createFamily("smiths", organizer: "organizer@local")
            _ = try await store.testSession.addFamilyMember(member, to: "smiths")
            let organizer = try await store.testSession.switchAccount(to: "organizer@local")
            _ = try await organizer.app.buy(ID.goPro)
            try StoreContext.resolve().changed()
            #expect(await observer.waitFor(ID.goPro, .purchased) != nil, "the shared purchase arrives as the member's")
            #expect(await observer.wait { $0.contains(.removed([ID.goPro])) }, "and is finished before it is taken back")
            _ = try await store.testSession.removeFamilyMember(member, from: "smiths")
            try StoreContext.resolve().changed()
            #expect(await observer.wait { $0.contains(.revoked([ID.goPro])) })
            try await Task.sleep(for: .milliseconds(300))
            try await session.buyProduct(identifier: ID.shopping)  // another change: the revocation is not told twice
            #expect(await observer.waitFor(ID.shopping, .purchased) != nil)
            #expect(observer.events.filter { $0 == .revoked([ID.goPro]) }.count == 1)
        }
    }

    @Test func aPromotionalOfferIsCheckedAsTheAppStoreChecksItsSignature() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let store = try StoreContext.resolve().store
            _ = try await store.appStore.createOfferKey(keyID: "SK1")
            let lapsed = try await session.buyProduct(identifier: ID.monthly)
            await lapsed.finish()
            try session.expireSubscription(productIdentifier: ID.monthly)
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            let yearly = try #require(try await loadSKProducts([ID.yearly]).first)
            let signed = try await store.appStore.signPromotionalOffer(productID: ID.yearly, offerID: "annual_comeback", form: .legacy)
            guard case .legacy(let keyID, let nonce, let timestamp, let signature) = signed else { Issue.record("form"); return }

            let forged = SKMutablePayment(product: yearly)
            forged.paymentDiscount = SKPaymentDiscount(identifier: "annual_comeback", keyIdentifier: keyID, nonce: UUID(),
                                                       signature: signature, timestamp: NSNumber(value: timestamp))
            queue.add(forged)
            #expect(await observer.waitFor(ID.yearly, .failed)?.errorCode == .invalidSignature)

            let genuine = SKMutablePayment(product: yearly)
            genuine.paymentDiscount = SKPaymentDiscount(identifier: "annual_comeback", keyIdentifier: keyID, nonce: nonce,
                                                        signature: signature, timestamp: NSNumber(value: timestamp))
            queue.add(genuine)
            #expect(await observer.waitFor(ID.yearly, .purchased) != nil)
            let bought = try #require(await Transaction.latest(for: ID.yearly)).unsafePayloadValue
            #expect(bought.offerID == "annual_comeback" && bought.offerType == .promotional)
        }
    }

    @Test func aPromotedPurchaseIsAddedOnlyWhenTheObserverSaysSo() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let queue = SKPaymentQueue.default()
            let refusing = RecordingObserver()
            queue.add(refusing)
            queue.simulateStorePayment(productIdentifier: ID.shopping)
            try await Task.sleep(for: .milliseconds(500))
            #expect(refusing.seen.isEmpty && queue.transactions.isEmpty)
            let accepting = RecordingObserver(addsStorePayments: true)
            queue.add(accepting)
            defer { queue.remove(refusing); queue.remove(accepting) }
            queue.simulateStorePayment(productIdentifier: ID.shopping)
            #expect(await accepting.waitFor(ID.shopping, .purchased) != nil)
        }
    }

    @Test func theCodeRedemptionSheetsPurchaseArrivesAsPurchased() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = RecordingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            try await Task.sleep(for: .milliseconds(200))
            queue.redeem(code: "NOSUCHCODE")  // refused: the app hears nothing
            queue.redeem(code: "FREE3C")
            let redeemed = try #require(await observer.waitFor(ID.yearly, .purchased))
            #expect(observer.seen.filter { $0.state != .purchased }.isEmpty)
            let transaction = try #require(await Transaction.latest(for: ID.yearly)).unsafePayloadValue
            #expect(String(transaction.id) == redeemed.identifier && transaction.offerType == .code)
        }
    }
}
