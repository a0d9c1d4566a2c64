import Foundation
import StoreLedger
import StorefrontKit
@testable import StorefrontKitTest
import Testing

/// A session's store starts from a store made once in the process for its configuration file
/// (SessionStoreTemplate): each session still has a file of its own, empty of purchases, sound,
/// committing without waiting for the disk.
@Suite("SKTestSession: each session's store, started from one made once")
struct SessionStoreTemplateTests {
    @Test("sessions on one file share its signing key, never a purchase; each file is a sound store of its own")
    func sessionsShareTheKeyNotThePurchases() async throws {
        let first = try SKTestSession(contentsOf: catalogURL)
        try await first.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success = try await product.purchase() else { Issue.record("not bought"); return }
        }
        let second = try SKTestSession(contentsOf: catalogURL)
        #expect(first.storePath != second.storePath)
        #expect(first.allTransactions().count == 1)
        #expect(second.allTransactions().isEmpty)
        #expect(first.context.store.app.publicKeyPEM == second.context.store.app.publicKeyPEM)
        #expect(second.context.store.durability == .processCrashSafe)
        try await second.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(.verified) = try await product.purchase() else { Issue.record("not bought in the second"); return }
        }
        #expect(first.allTransactions().count == 1 && second.allTransactions().count == 1)
        // Another process finds nothing wrong with the copy: schema, key, chain and seals.
        let doctor = try await runStorefront(["--catalog", catalogURL.path, "--store", second.storePath, "doctor"])
        #expect(doctor.status == 0, "\(doctor.output)")
    }

    @Test("a session's store is new to the ledger: this process's open files (thousands in a parallel run) are never read for it")
    func aSessionReadsNoOpenFiles() async throws {
        // The first makes the template, if no test has yet; the second is made from it.
        let first = try SKTestSession(contentsOf: catalogURL)
        let reads = StoreFileCompanions.Counter()
        let second = try StoreFileCompanions.$openFileReads.withValue(reads) { try SKTestSession(contentsOf: catalogURL) }
        #expect(reads.count.load(ordering: .relaxed) == 0)
        #expect(first.storePath != second.storePath)
        #expect(first.context.store.app.publicKeyPEM == second.context.store.app.publicKeyPEM)
    }

    @Test("a session starts with Xcode's settings from the template, writing nothing: refund requests approved at once")
    func aSessionStartsWithoutAWrite() async throws {
        _ = try SKTestSession(contentsOf: catalogURL)  // the template, if no test made it yet
        let session = try SKTestSession(contentsOf: catalogURL)
        let outcome = try await session.context.store.testSession.value(.refundRequestOutcome)
        #expect(outcome == .approve)
        let log = (try? FileManager.default.attributesOfItem(atPath: session.storePath + "-wal")[.size] as? Int) ?? 0
        #expect(log == 0, "the session's start wrote \(log) bytes to its log")
    }

    @Test("a configuration file edited between sessions makes a new store: its settings, and a key of its own")
    func anEditedFileMakesANewStore() async throws {
        let folder = try TemporaryFolder(prefix: "template")
        let url = URL(fileURLWithPath: folder.path("products.json"))
        let text = try String(contentsOf: catalogURL, encoding: .utf8)
        try text.write(to: url, atomically: true, encoding: .utf8)
        let before = try SKTestSession(contentsOf: url)
        #expect(before.askToBuyEnabled == false)
        // Ask to Buy on in the file: a store kept from the first would not know it.
        let edited = text.replacingOccurrences(of: "{", with: "{\"startingSettings\": {\"askToBuyEnabled\": true}, ", options: [], range: text.range(of: "{"))
        try edited.write(to: url, atomically: true, encoding: .utf8)
        let after = try SKTestSession(contentsOf: url)
        #expect(after.askToBuyEnabled == true)
        #expect(before.context.store.app.publicKeyPEM != after.context.store.app.publicKeyPEM)
    }
}
