import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// `Transaction.updates`: what the App Store does, in this process or another, reaches the app.
@Suite struct UpdatesTests {
    @Test func anApprovalMadeWithTheCLIArrivesOnUpdates() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        session.askToBuyEnabled = true
        try await session.run {
            let updates = Transaction.updates
            let product = try #require(try await Product.products(for: [ID.shopping]).first)
            guard case .pending = try await product.purchase() else { Issue.record("expected pending"); return }
            let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
            #expect(await Transaction.latest(for: ID.shopping) == nil)
            let run = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath,
                                               "approve", String(request.identifier)])
            #expect(run.status == 0, "\(run.output)")
            let update = try #require(await first(of: updates, within: 20))
            let transaction = try update.payloadValue
            #expect(transaction.productID == ID.shopping && transaction.revocationDate == nil)
            await transaction.finish()
            #expect(await Transaction.currentEntitlement(for: ID.shopping) != nil)
        }
    }

    @Test func aRefundArrivesWithItsRevocationDate() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            let bought = try result.payloadValue
            await bought.finish()
            let listener = Listener(Transaction.updates)
            // A canary bought outside the app proves the listener has taken its first look.
            try await session.buyProduct(identifier: ID.shopping)
            #expect(await listener.count(atLeast: 1, within: 20))
            try session.refundTransaction(identifier: Int(bought.id))
            #expect(await listener.count(atLeast: 2, within: 20))
            let update = try #require(await listener.received.last)
            #expect(update.unsafePayloadValue.id == bought.id && update.unsafePayloadValue.revocationDate != nil)
            #expect(await Transaction.currentEntitlement(for: ID.goPro) == nil)
        }
    }

    @Test func purchaseResultsAreNotRepeatedOnUpdates() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let updates = Transaction.updates
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            _ = try await product.purchase()  // left unfinished on purpose
            try await session.buyProduct(identifier: ID.shopping)
            let update = try #require(await first(of: updates, within: 20))
            #expect(update.unsafePayloadValue.productID == ID.shopping)
        }
    }

    @Test func parallelSessionsStayApart() async throws {
        let one = try SKTestSession(contentsOf: catalogURL)
        let two = try SKTestSession(contentsOf: catalogURL)
        async let first: [String] = one.run { try await buyAndList(ID.goPro) }
        async let second: [String] = two.run { try await buyAndList(ID.shopping) }
        #expect(try await first == [ID.goPro])
        #expect(try await second == [ID.shopping])
        #expect(one.allTransactions().map(\.productIdentifier) == [ID.goPro])
    }
}

/// Buys and finishes `productID`, then lists the entitlements of the bound session.
private func buyAndList(_ productID: String) async throws -> [String] {
    let product = try #require(try await Product.products(for: [productID]).first)
    if case .success(let result) = try await product.purchase() { await result.unsafePayloadValue.finish() }
    try await Task.sleep(for: .milliseconds(50))
    return await Array(Transaction.currentEntitlements).map(\.unsafePayloadValue.productID)
}

extension AsyncSequence where Self: Sendable {
    /// Every element, for finite sequences.
    func collect() async rethrows -> [Element] { try await reduce(into: []) { $0.append($1) } }
}

extension Array {
    /// The elements of a finite `Transaction.Transactions`.
    init(_ sequence: Transaction.Transactions) async where Element == VerificationResult<Transaction> {
        self = await sequence.collect()
    }
}
