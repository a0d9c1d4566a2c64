import Foundation
import Glibc

/// Why a catalog could not be used. Its description names the file, the place
/// (line and column, or a JSON path such as `products[3].price`) and the fault.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No file at the path (exit 66).
        case missing
        /// The file exists but cannot be read (exit 66).
        case unreadable
        /// Not JSON at all, at this line and column (exit 65).
        case malformed(line: Int, column: Int)
        /// Valid JSON with an invalid value at this JSON path (exit 65).
        case invalid(path: String)
    }

    public var file: String
    public var kind: Kind
    public var reason: String

    public var description: String {
        switch kind {
        case .missing, .unreadable: "\(file): \(reason)"
        case .malformed(let line, let column): "\(file):\(line):\(column): malformed JSON: \(reason)"
        case .invalid(let path): "\(file): \(path.isEmpty ? "top level" : path): \(reason)"
        }
    }
}

extension Catalog {
    /// The largest catalog file read: 256 MiB. The App Store allows 10,000 in-app purchases an
    /// app, a few hundred bytes each and a few more in each localization: a real catalog is a few
    /// megabytes, 100 MB at the most. The file is held whole while it is read (and its catalog
    /// beside it), so a bound keeps `-c /dev/zero`, or a file named by mistake, from taking all memory.
    public static let largestFile = 256 << 20

    /// Reads and validates a catalog file: products.json, or an Xcode StoreKit
    /// configuration file (`.storekit`), told apart by content, not by the name.
    /// A regular file only, of at most ``largestFile`` bytes.
    public static func load(contentsOf path: String) throws(CatalogError) -> Catalog {
        let bytes: [UInt8]
        switch BoundedFileRead.bytes(of: path, limit: largestFile) {
        case .success(let read): bytes = read
        case .failure(.missing): throw CatalogError(file: path, kind: .missing, reason: "no such file")
        case .failure(.folder): throw CatalogError(file: path, kind: .unreadable, reason: "is a folder, not a catalog file")
        case .failure(.notRegular(let kind)):
            throw CatalogError(file: path, kind: .unreadable, reason: "is \(kind), not a regular file: a catalog is read from a file")
        case .failure(.tooLarge):
            throw CatalogError(file: path, kind: .unreadable,
                               reason: "is larger than \(largestFile >> 20) MiB, the most a catalog may be (a real one is a few MB)")
        case .failure(.unreadable(let reason)): throw CatalogError(file: path, kind: .unreadable, reason: "cannot be read (\(reason))")
        }
        return try parse(bytes, file: path)
    }

    /// Parses and validates catalog text (products.json or `.storekit`); `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(CatalogError) -> Catalog {
        let catalog = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(CatalogError) in try read(buffer, file: file) }
        }
        return try catalog.get()
    }

    /// Checks the whole document first (so a syntax error anywhere is reported before any
    /// fault in its content, as it always was), then reads the catalog from its bytes.
    private static func read(_ buffer: UnsafeBufferPointer<UInt8>, file: String) throws(CatalogError) -> Catalog {
        var checker = JSONReader(buffer)
        let root: Int
        var topLevel: [(key: JSONReader.Key, start: Int, end: Int)]?  // listed as they are checked
        do {
            root = try checker.document { reader throws(JSONSyntaxError) in
                let start = reader.index
                guard try reader.kind() == .object else {
                    try reader.skipValue()
                    return start
                }
                var members: [(key: JSONReader.Key, start: Int, end: Int)] = []
                try reader.object { reader, key throws(JSONSyntaxError) in
                    let start = reader.index
                    try reader.skipValue()
                    members.append((key, start, reader.index))
                }
                topLevel = members
                return start
            }
        } catch {
            throw CatalogError(file: file, kind: .malformed(line: error.line, column: error.column), reason: error.reason)
        }
        do {
            var catalog: Catalog
            let node = Node(buffer, root: root)
            let fields = topLevel.map { Node.Fields(node, members: $0) }
            // Told apart by content. Telling needs a look at every product, so products.json is read
            // first, noting any product with Xcode's keys: a look at them all again only then, or on an error.
            func readStoreKit() throws -> Catalog {
                var reader = StoreKitReader(root: node)
                return try reader.catalog()
            }
            if let fields, StoreKitConfiguration.namesXcodeKeys(fields) {
                catalog = try readStoreKit()
            } else {
                var reader = CatalogReader(root: node, fields: fields)
                do {
                    catalog = try reader.catalog()
                    if reader.sawXcodeProductKeys, StoreKitConfiguration.recognizes(node) { catalog = try readStoreKit() }
                } catch {
                    guard StoreKitConfiguration.recognizes(node) else { throw error }
                    catalog = try readStoreKit()
                }
            }
            catalog.notes += catalog.offerCodeClashNotes()
            // Notes name the file, as errors do.
            catalog.notes = catalog.notes.map { "\(file): \($0)" }
            return catalog
        } catch let failure as Node.Failure {
            throw CatalogError(file: file, kind: .invalid(path: failure.path), reason: failure.reason)
        } catch {
            throw CatalogError(file: file, kind: .invalid(path: ""), reason: "\(error)")
        }
    }
}
