import Foundation
import StoreEngine

/// Which catalog a command runs on: `--catalog PATH`; else ./products.json; else the one
/// `.storekit` file in the current folder; else none, which only the commands that need
/// no products accept (they name products by id).
enum CatalogLocation {
    /// The file to read, or nil to run without a catalog.
    case file(String)
    case none

    /// Two or more `.storekit` files and no products.json: which one is meant is not guessed.
    struct Ambiguous: Error {
        var files: [String]
        var description: String {
            "no products.json here and \(files.count) .storekit files: \(files.joined(separator: ", ")); "
                + "pass the one to use with --catalog PATH"
        }
    }

    static func find(_ invocation: Invocation, folder: String = FileManager.default.currentDirectoryPath)
        throws(Ambiguous) -> CatalogLocation {
        if invocation.catalogGiven { return .file(invocation.catalogPath) }
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: invocation.catalogPath) { return .file(invocation.catalogPath) }
        let storekit = ((try? fileManager.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".storekit") && !$0.hasPrefix(".") }.sorted()
        switch storekit.count {
        case 0: return .none
        case 1: return .file(storekit[0])
        default: throw Ambiguous(files: storekit)
        }
    }
}

extension Command {
    /// Whether the command needs the catalog's products (their prices, kinds, groups):
    /// the app's commands, the subscription commands and the clock's renewals do; the
    /// history, the requests' answers, refunds, accounts, settings and keys do not.
    var needsCatalog: Bool {
        // The paywall shows the catalog; every command says for itself.
        guard let type else { return true }
        return type.needsCatalog(self)
    }
}
