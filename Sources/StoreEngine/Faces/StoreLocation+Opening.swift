import Foundation

/// Why the store ``StoreLocation`` finds could not be opened with its catalog.
public enum StoreOpeningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The catalog file could not be read or used (the error names the file).
    case catalog(CatalogError)
    /// None named, none in `folder` and none the store last ran with; `gone`: the one it last ran
    /// with, which no longer exists.
    case noCatalog(folder: String, gone: String?)
    /// Two or more `.storekit` files in `folder` (their names, sorted) and no products.json.
    case ambiguous(folder: String, files: [String])
    /// The store could not be opened.
    case store(StoreFileError)

    public var description: String {
        switch self {
        case .catalog(let error): error.description
        case .noCatalog(let folder, let gone):
            "no catalog: no products.json or .storekit file in \(folder)"
                + (gone.map { ", and \($0), the catalog this store last ran with, is gone" } ?? "")
        case .ambiguous(let folder, let files):
            "no products.json in \(folder) and \(files.count) .storekit files: \(files.joined(separator: ", "))"
        case .store(let error): "store file \(error.description)"
        }
    }
}

extension StoreLocation {
    /// Opens the store with its catalog by the one rule: the catalog found (named, or in the
    /// folder), else — when `needsCatalog` — the one a file store last ran with, if it still
    /// exists (see `Store+CatalogFile.swift`). A catalog found is kept in a file store as the one
    /// it last ran with. Without `needsCatalog` and no catalog found, the store opens without one.
    /// - Returns: the store, and where its catalog came from (`.lastRan` for the remembered one).
    public func open(account: String? = nil, needsCatalog: Bool = true,
                     durability: Durability = .full) throws(StoreOpeningError) -> (store: Store, catalog: CatalogFinding) {
        switch catalog {
        case .ambiguous(let folder, let files):
            throw .ambiguous(folder: folder, files: files)
        case .file(let path, _):
            let loaded: Catalog
            do { loaded = try Catalog.load(contentsOf: path) } catch { throw .catalog(error) }
            do {
                let store = try Store(catalog: loaded, path: storePath, account: account, createFolder: createsFolder,
                                      durability: durability, template: nil, catalogFile: Self.absolute(path))
                return (store, catalog)
            } catch {
                throw .store(error)
            }
        case .none(let folder):
            if needsCatalog {
                guard let (store, file) = try Store.openWithCatalogItLastRanWith(path: storePath, folder: folder, account: account,
                                                                               durability: durability) else {
                    throw .noCatalog(folder: folder, gone: nil)
                }
                return (store, .file(path: file, reason: .lastRan))
            }
            do {
                return (try Store(catalog: .absent, path: storePath, account: account, createFolder: createsFolder,
                                  durability: durability), catalog)
            } catch {
                throw .store(error)
            }
        }
    }

    /// `path` made absolute (against the current folder) and standardized, as a store keeps it.
    static func absolute(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath
    }
}
