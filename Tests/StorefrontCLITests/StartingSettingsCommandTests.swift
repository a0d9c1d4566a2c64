import Foundation
import Testing

/// A `.storekit` file's starting settings, as the binary sees them from any process on the store file.
@Suite struct StartingSettingsCommandTests {
    @Test func settingsWithoutTheCatalogSayWhatTheStoreKitFileBrought() async throws {
        let sandbox = try Sandbox()
        // The catalog in a folder of its own: the sandbox folder, where the commands run, holds none.
        try FileManager.default.createDirectory(atPath: sandbox.path("shop"), withIntermediateDirectories: true)
        let catalog = try sandbox.write("shop/Shop.storekit", askToBuyStoreKitText)
        let with = try await sandbox.storefront(["settings", "--json"], catalog: catalog)
        with.expect(exit: 0)
        #expect((try with.jsonObject()["settings"] as? [String: Any])?["askToBuy"] as? String == "true", "\(with)")

        let without = try await sandbox.run(["--store", sandbox.store, "settings", "--json"])
        without.expect(exit: 0)
        #expect((try without.jsonObject()["settings"] as? [String: Any])?["askToBuy"] as? String == "true", "\(without)")
        let table = try await sandbox.run(["--store", sandbox.store, "settings"])
        let row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("askToBuy") })
        #expect(row.contains("true"), "\(table)")
    }
}
