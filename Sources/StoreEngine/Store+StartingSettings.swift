import Foundation

// MARK: - A catalog's starting settings, kept in the store file

/// A catalog's starting settings (a `.storekit` file's `_askToBuyEnabled`, `_timeRate`,
/// `_storeKitErrors`, …; products.json's `startingSettings`) are written into the store file
/// when it is opened with that catalog, so every process on the file — with the catalog or
/// without — starts from the same conditions.
///
/// The rule:
/// - They are kept as the settings' *starting values* (`starting.NAME` rows, store-wide), with
///   a record of the catalog that wrote them (`starting.catalog`: its bundle id and settings).
///   A setting's value is: what the tester set (`settings set`, `SKTestSession`), else its
///   starting value, else its built-in default. A setting the tester changed is kept, whatever
///   a catalog brings later.
/// - They are written when the file is first opened with a catalog that brings any, and again
///   whenever a catalog whose starting settings differ from the recorded ones opens it: a
///   second, different `.storekit` replaces the first one's starting values (those it does not
///   name go back to their built-in defaults). Opening with the same catalog writes nothing.
/// - A catalog that brings no starting settings (most products.json files) and a run without
///   a catalog leave the recorded ones as they are.
/// - `reset all` clears them with every other setting; the next open with the catalog writes them again.
extension Store {
    /// The settings row recording which catalog wrote the starting values.
    static let startingCatalogSetting = "starting.catalog"

    /// The settings row that keeps setting `name`'s starting value.
    static func startingSetting(_ name: String) -> String { "starting." + name }

    /// Writes `catalog`'s starting settings into the store file unless they are the ones recorded
    /// (see the rule above). Nothing is written for a catalog without any, or a file that cannot be.
    static func recordStartingSettings(of catalog: Catalog, in ledger: Ledger) {
        guard !catalog.isAbsent, !catalog.settingDefaults.isEmpty else { return }
        let values = SettingDefinition.all.compactMap { definition -> (String, String)? in
            guard let text = catalog.settingDefaults[definition.name],
                  let value = definition.normalized(text, in: catalog) else { return nil }
            return (definition.name, value)
        }
        let record = ([catalog.bundleID] + values.map { "\($0.0)=\($0.1)" }).joined(separator: "\n")
        guard (try? ledger.setting(startingCatalogSetting, account: "")) != record else { return }
        try? ledger.write {
            // Read again under the write lock: another process may have just written the same.
            guard try ledger.setting(startingCatalogSetting, account: "") != record else { return }
            for definition in SettingDefinition.all { try ledger.removeSetting(startingSetting(definition.name), account: "") }
            for (name, value) in values { try ledger.setSetting(startingSetting(name), account: "", value: value) }
            try ledger.setSetting(startingCatalogSetting, account: "", value: record)
        }
    }
}
