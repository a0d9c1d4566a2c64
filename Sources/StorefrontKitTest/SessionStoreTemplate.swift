import Foundation
import Glibc
import StoreEngine
import StorefrontKit
import Synchronization

/// A new session's store, started from the bytes of a store made once in this process for the
/// same configuration file: a new store file costs its schema and a signing key with its
/// certificate chain, most of an app's StoreKit test. Every session still gets a file of its
/// own, as a new store is before its first purchase; the sessions of one process share the
/// signing key, as tests on one device share Xcode's certificate. The bytes go to the ledger's
/// creation path (a draft linked into place), so each session's file is new to it: an existing
/// file's checks read this process's open files, thousands in a parallel test run.
enum SessionStoreTemplate {
    /// A configuration file as it was when its template was made: edited, it makes a new one.
    private struct Source: Hashable {
        var path: String
        var size: Int
        var modified: Int
        var modifiedNanoseconds: Int

        init?(_ url: URL) {
            var info = stat()
            guard stat(url.path, &info) == 0 else { return nil }
            (path, size) = (url.path, Int(info.st_size))
            (modified, modifiedNanoseconds) = (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
        }
    }

    /// The template's bytes for each configuration file; nil while one could not be made.
    private static let templates = Mutex<[Source: [UInt8]]>([:])
    /// Each configuration file, read.
    private static let catalogs = Mutex<[Source: Catalog]>([:])

    /// The catalog in the configuration file at `url`, read once while it is unchanged.
    static func catalog(at url: URL) throws(CatalogError) -> Catalog {
        let source = Source(url)
        if let source, let catalog = catalogs.withLock({ $0[source] }) { return catalog }
        let catalog = try Catalog.load(contentsOf: url.path)
        if let source { catalogs.withLock { $0[source] = catalog } }
        return catalog
    }

    /// Opens a new store at `path` (in a folder of the session's own) for `catalog`, read from `url`,
    /// with a session's starting settings (``startSession(_:)``): the template's, or written now.
    static func store(catalog: Catalog, from url: URL, at path: String) throws(StoreFileError) -> Store {
        let bytes = Source(url).flatMap { template(for: $0, catalog: catalog, beside: path) }
        let store = try open(catalog, path, template: bytes)
        if bytes == nil { startSession(store) }
        return store
    }

    /// The template for a configuration file, made at its first session; nil when one cannot be made.
    private static func template(for source: Source, catalog: Catalog, beside path: String) -> [UInt8]? {
        if let bytes = templates.withLock({ $0[source] }) { return bytes }
        // Sessions starting at once each make one; the first kept is every session's, so they share one key.
        return makeTemplate(catalog: catalog, beside: path).map { made in
            templates.withLock { templates in
                if let kept = templates[source] { return kept }
                templates[source] = made
                return made
            }
        }
    }

    /// A session's store lives as long as its test: no commit waits for the disk (``Durability``).
    private static func open(_ catalog: Catalog, _ path: String, template: [UInt8]? = nil) throws(StoreFileError) -> Store {
        try Store(catalog: catalog, path: path, durability: .processCrashSafe, template: template)
    }

    /// What a session's store starts with beyond a new store's, in its template (no write a session):
    /// Xcode's test environment "always approves refund requests, and processes them immediately"
    /// (`SKTestSession.refundTransaction(identifier:)`); `storefront settings set refundRequestOutcome
    /// wait` on the session's store makes them wait for a decision instead.
    private static func startSession(_ store: Store) {
        _ = try? blockingStoreKitCall { try await store.testSession.set(.refundRequestOutcome, to: .approve) }
    }

    /// A store made and closed at a path beside `path`, read back whole and removed; nil when it
    /// cannot be (its log not written back into it, as when another connection kept it open).
    private static func makeTemplate(catalog: Catalog, beside path: String) -> [UInt8]? {
        let template = path + ".template"
        defer { for suffix in ["", "-wal", "-shm"] { unlink(template + suffix) } }
        do { startSession(try open(catalog, template)) } catch { return nil }
        // Closed: the last connection wrote its log back into the file and removed it.
        guard !FileManager.default.fileExists(atPath: template + "-wal"),
              let data = FileManager.default.contents(atPath: template), !data.isEmpty else { return nil }
        return Array(data)
    }
}
