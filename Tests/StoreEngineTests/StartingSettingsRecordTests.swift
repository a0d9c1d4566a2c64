import Foundation
import Testing
@testable import StoreEngine

/// A catalog's starting settings, written into the store file for every process on it.
@Suite struct StartingSettingsRecordTests {
    private func storeKit(askToBuy: Bool = true, billingIssues: Bool? = nil) throws -> Catalog {
        var text = askToBuyStoreKitText.replacingOccurrences(of: "\"_askToBuyEnabled\" : true", with: "\"_askToBuyEnabled\" : \(askToBuy)")
        if let billingIssues {
            text = text.replacingOccurrences(of: "\"_timeRate\" : 0", with: "\"_timeRate\" : 0, \"_billingIssuesEnabled\" : \(billingIssues)")
        }
        return try Catalog.parse(Array(text.utf8), file: "Shop.storekit")
    }

    @Test func aStoreKitFilesAskToBuyHoldsWithoutTheCatalog() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            let withCatalog = try Store(catalog: try storeKit(), path: path)
            #expect(try await withCatalog.testSession.value(.askToBuy))
            // Another process on the same file, without the catalog (`storefront settings` elsewhere).
            let without = try Store(catalog: .absent, path: path)
            #expect(try await without.testSession.value(.askToBuy))
            // And one with a products.json that brings no starting settings.
            let plain = try Store(catalog: try fixtureCatalog(), path: path)
            #expect(try await plain.testSession.value(.askToBuy))
            // It is a starting value, not something the tester set.
            let listed = try await without.testSession.settings().first { $0.name == "askToBuy" }
            #expect(listed?.value == "true" && listed?.isDefault == true)
        }
    }

    @Test func aSecondDifferentStoreKitFileReplacesTheStartingValuesButNotTheTestersChanges() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            let first = try Store(catalog: try storeKit(askToBuy: true, billingIssues: true), path: path)
            #expect(try await first.testSession.value(.billingIssues))
            try await first.testSession.set(.askToBuy, to: false)  // the tester's own change
            // A different .storekit: its starting values replace the first one's (billing issues back to off)…
            _ = try Store(catalog: try storeKit(askToBuy: true), path: path)
            let after = try Store(catalog: .absent, path: path)
            #expect(try await !after.testSession.value(.billingIssues))
            // …and what the tester set stays.
            #expect(try await !after.testSession.value(.askToBuy))
        }
    }

    @Test func theSameCatalogOpenedAgainWritesNothing() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            let first = try Store(catalog: try storeKit(), path: path)
            let version = try await first.testSession.dataVersion()
            _ = try Store(catalog: try storeKit(), path: path)
            #expect(try await first.testSession.dataVersion() == version)
        }
    }
}
