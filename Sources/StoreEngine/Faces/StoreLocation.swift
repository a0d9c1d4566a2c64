import Foundation

/// Where the catalog and the store file are, by the one rule every front end uses (the CLI and
/// its paywall, StorefrontKit), with why each was chosen.
///
/// The catalog: the one named (`--catalog`, `StorefrontKit.configure(catalog:)`); else
/// `products.json` in the folder; else the one `.storekit` file there — hidden files skipped
/// (the `._Shop.storekit` a Mac's copy leaves beside `Shop.storekit`); else, when opened for what
/// needs products (``open(account:needsCatalog:durability:)``), the one a file store last ran with
/// (`Store+CatalogFile.swift`); else none. Two or more `.storekit` files and no products.json: which
/// one is meant is not guessed.
///
/// The store file: the one named (`--store`, `configure(store:)`); else `$STOREFRONT_STORE`;
/// else `$XDG_STATE_HOME/storefront/store.sqlite`, else `~/.local/state/storefront/store.sqlite`
/// (whose folder is created when missing; a named file's folder is not).
public struct StoreLocation: Sendable, Equatable {
    /// Why a catalog file was chosen.
    public enum CatalogReason: String, Sendable, Equatable {
        /// Named by the caller (a flag, an argument).
        case named
        /// `products.json` in the folder.
        case productsJSON
        /// The only (visible) `.storekit` file in the folder.
        case onlyStoreKitFile
        /// None named and none in the folder: the one the store last ran with, kept in the store.
        case lastRan
    }

    /// Why a store file was chosen.
    public enum StoreReason: String, Sendable, Equatable {
        /// Named by the caller (a flag, an argument).
        case named
        /// `$STOREFRONT_STORE`.
        case environment
        /// The state folder's `store.sqlite`.
        case defaultLocation
    }

    /// What was found of the catalog.
    public enum CatalogFinding: Sendable, Equatable {
        /// A catalog file, and why it was chosen.
        case file(path: String, reason: CatalogReason)
        /// None named and none in `folder`: only what needs no products can run.
        case none(folder: String)
        /// Two or more `.storekit` files in `folder` (their names, sorted) and no products.json.
        case ambiguous(folder: String, files: [String])

        /// The catalog file's path, when one was found.
        public var path: String? {
            if case .file(let path, _) = self { return path }
            return nil
        }
    }

    /// The catalog found.
    public var catalog: CatalogFinding
    /// The store file.
    public var storePath: String
    public var storeReason: StoreReason
    /// Whether the store file's folder is made when missing: only for the default location.
    public var createsFolder: Bool { storeReason == .defaultLocation }

    /// Finds the catalog and the store file.
    /// - Parameters:
    ///   - catalog: the catalog the caller names, if any.
    ///   - store: the store file the caller names, if any.
    ///   - folder: where to look for a catalog; nil: the current folder, and the path found is
    ///     relative to it (`products.json`, `Shop.storekit`).
    public static func find(catalog: String? = nil, store: String? = nil,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            folder: String? = nil) -> StoreLocation {
        let (path, reason) = storeFile(named: store, environment: environment)
        return StoreLocation(catalog: catalog.map { .file(path: $0, reason: .named) } ?? findCatalog(in: folder),
                             storePath: path, storeReason: reason)
    }

    /// The store file alone (for what needs no catalog, such as the doctor).
    public static func storeFile(named store: String?, environment: [String: String]) -> (path: String, reason: StoreReason) {
        if let store { return (store, .named) }
        if let named = environment["STOREFRONT_STORE"], !named.isEmpty { return (named, .environment) }
        return (defaultStorePath(environment: environment), .defaultLocation)
    }

    /// The catalog in `folder` (nil: the current folder, named relative to it).
    static func findCatalog(in folder: String?) -> CatalogFinding {
        let place = folder ?? FileManager.default.currentDirectoryPath
        let name = { (file: String) in folder.map { $0 + "/" + file } ?? file }
        if FileManager.default.fileExists(atPath: place + "/products.json") { return .file(path: name("products.json"), reason: .productsJSON) }
        let storeKit = ((try? FileManager.default.contentsOfDirectory(atPath: place)) ?? [])
            .filter { $0.hasSuffix(".storekit") && !$0.hasPrefix(".") }.sorted()
        switch storeKit.count {
        case 0: return .none(folder: place)
        case 1: return .file(path: name(storeKit[0]), reason: .onlyStoreKitFile)
        default: return .ambiguous(folder: place, files: storeKit)
        }
    }

    /// The default store file: `$XDG_STATE_HOME/storefront/store.sqlite`, else `~/.local/state/storefront/store.sqlite`.
    /// Only an absolute path counts (as the XDG spec says of its variables): an empty or relative
    /// `XDG_STATE_HOME` is passed over, and an empty or relative `HOME` gives way to the account's
    /// home in the password database — `HOME=""` would otherwise make `/.local/state` the place.
    public static func defaultStorePath(environment: [String: String]) -> String {
        let absolute = { (text: String?) in text.flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let state = absolute(environment["XDG_STATE_HOME"])
            ?? (absolute(environment["HOME"]) ?? absolute(accountHome()) ?? NSHomeDirectory()) + "/.local/state"
        return state + "/storefront/store.sqlite"
    }

    /// The home folder the password database gives this process's user, if any.
    static func accountHome() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        return buffer.withUnsafeMutableBufferPointer { bytes -> String? in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            guard let start = bytes.baseAddress, getpwuid_r(getuid(), &entry, start, bytes.count, &found) == 0, found != nil,
                  let home = entry.pw_dir else { return nil }
            return String(cString: home)
        }
    }

}
