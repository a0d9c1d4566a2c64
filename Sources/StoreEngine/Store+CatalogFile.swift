import Foundation

// MARK: - The catalog a store last ran with, kept in the store

/// The last step of the catalog rule (``StoreLocation``): with no catalog named and none in the
/// folder, a store opens with the catalog it last ran with, so `approve` in a second terminal, in
/// any folder, charges the prices the paywall showed.
///
/// The rule:
/// - A file store keeps the catalog file it was opened with by the rule (named, or found in the
///   folder) in a store-wide settings row, `catalog.path`: an absolute, standardized path. It is
///   written only when it changed: the same catalog opening the store again writes nothing.
/// - A store in PostgreSQL keeps none: a path is one host's, and a store shared by several hosts
///   must not make one load another's path.
/// - An old store with no row and a side file `STORE.catalog` (one absolute path, as earlier
///   versions kept it) opens with the catalog the side file names, which is recorded in the store
///   then; the side file is left where it is.
/// - `reset all` keeps the row while it clears every other setting: the store still runs with that catalog.
extension Store {
    /// The store-wide settings row keeping the catalog file the store last ran with.
    static let catalogFileSetting = "catalog.path"

    /// The side file earlier versions kept beside a file store, naming its catalog.
    static func catalogSideFile(of store: String) -> String { store + ".catalog" }

    /// Records `file` as the catalog the store runs with, unless it is the one recorded already.
    static func recordCatalogFile(_ file: String, in ledger: Ledger) {
        guard (try? ledger.setting(catalogFileSetting, account: "")) != file else { return }
        try? ledger.write {
            // Read again under the write lock: another process may have just written the same.
            guard try ledger.setting(catalogFileSetting, account: "") != file else { return }
            try ledger.setSetting(catalogFileSetting, account: "", value: file)
        }
    }

    /// Opens the file store at `path` with the catalog it last ran with: its `catalog.path` row,
    /// else an old store's side file (recorded in the store now).
    /// - Returns: the store and its catalog's path; nil when the file does not exist (nothing is
    ///   made) or remembers no catalog.
    /// - Throws: `.noCatalog` naming the remembered file when it is gone, `.catalog` when it
    ///   cannot be read or used, `.store` when the store cannot be opened.
    static func openWithCatalogItLastRanWith(path: String, folder: String, account: String?,
                                            durability: Durability) throws(StoreOpeningError) -> (Store, String)? {
        let address = StoreAddress(path)
        guard address.isFile, FileManager.default.fileExists(atPath: path) else { return nil }
        let ledger: Ledger
        do { ledger = try Ledger.open(address, bundleID: Catalog.defaultBundleID, createFolder: false, durability: durability, now: Date.init) } catch {
            throw .store(error)
        }
        let recorded: String?
        do { recorded = try ledger.setting(catalogFileSetting, account: "") } catch {
            throw .store(StoreFileError(path: path, reason: "cannot be read: \(error)", isBusy: error.isBusy))
        }
        guard let file = recorded ?? sideFileCatalog(of: path) else { return nil }
        guard FileManager.default.fileExists(atPath: file) else { throw .noCatalog(folder: folder, gone: file) }
        let catalog: Catalog
        do { catalog = try Catalog.load(contentsOf: file) } catch { throw .catalog(error) }
        ledger.bundleID = catalog.bundleID
        do {
            // From the side file: recorded in the store now (one read of the row, done above).
            let store = try Store(catalog: catalog, ledger: ledger, address: address, account: account, durability: durability,
                                  catalogFile: recorded == nil ? file : nil, now: Date.init)
            return (store, file)
        } catch {
            throw .store(error)
        }
    }

    /// The catalog an old store's side file names: one absolute path.
    private static func sideFileCatalog(of store: String) -> String? {
        guard let data = FileManager.default.contents(atPath: catalogSideFile(of: store)), data.count < 4096,
              let text = String(data: data, encoding: .utf8) else { return nil }
        let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.hasPrefix("/") ? path : nil
    }
}
