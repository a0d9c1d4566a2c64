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
