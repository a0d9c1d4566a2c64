import Foundation
import StoreEngine

extension StoreLocation {
    /// Where a command's catalog and store file are: the engine's one rule, with `--catalog` and
    /// `--store` as the names given.
    static func find(_ invocation: Invocation, environment: [String: String], folder: String? = nil) -> StoreLocation {
        find(catalog: invocation.catalogGiven ? invocation.catalogPath : nil, store: invocation.storePath,
             environment: environment, folder: folder)
    }

    /// What the CLI says when two or more `.storekit` files and no products.json are in the folder.
    static func ambiguity(_ files: [String]) -> String {
        "no products.json here and \(files.count) .storekit files: \(files.joined(separator: ", ")); "
            + "pass the one to use with --catalog PATH"
    }
}

/// The catalog a store file last ran with, kept beside it (`store.sqlite.catalog`, one absolute
/// path): the one rule for every command that reads products is "the catalog named, else the
/// folder's, else the store file's last", so `approve` in a second terminal, in any folder, charges
/// the prices the paywall showed (the issue's QA recipe exited 66 outside the repository).
enum RememberedCatalog {
    /// The file beside `store` that names its catalog.
    static func file(beside store: String) -> String { store + ".catalog" }

    /// The catalog `store` last ran with, when it still exists.
    static func path(beside store: String) -> String? {
        // A store in a database has no folder: a note there would be on one host only.
        guard StoreAddress(store).isFile, let data = FileManager.default.contents(atPath: file(beside: store)), data.count < 4096,
              let text = String(data: data, encoding: .utf8) else { return nil }
        let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.hasPrefix("/") ? path : nil
    }

    /// Notes that `store` ran with the catalog at `catalog` (only when it changed; a folder that
    /// cannot be written keeps no note, and the rule falls back to the folder's catalog).
    static func remember(_ catalog: String, beside store: String) {
        guard StoreAddress(store).isFile else { return }
        let absolute = catalog.hasPrefix("/") ? catalog : FileManager.default.currentDirectoryPath + "/" + catalog
        let standardized = (absolute as NSString).standardizingPath
        guard path(beside: store) != standardized else { return }
        try? Data((standardized + "\n").utf8).write(to: URL(fileURLWithPath: file(beside: store)), options: .atomic)
    }
}
