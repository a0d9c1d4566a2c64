import Foundation

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
    /// Reads and validates a catalog file: products.json, or an Xcode StoreKit
    /// configuration file (`.storekit`), told apart by content, not by the name.
    public static func load(contentsOf path: String) throws(CatalogError) -> Catalog {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CatalogError(file: path, kind: .missing, reason: "no such file")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw CatalogError(file: path, kind: .unreadable,
                               reason: isDirectory.boolValue ? "is a folder, not a catalog file" : "cannot be read")
        }
        return try parse([UInt8](data), file: path)
    }

    /// Parses and validates catalog text (products.json or `.storekit`); `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(CatalogError) -> Catalog {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw CatalogError(file: file, kind: .malformed(line: error.line, column: error.column), reason: error.reason)
        }
        do {
            var catalog: Catalog
            if StoreKitConfiguration.recognizes(json) {
                var reader = StoreKitReader(root: Node(json, ""))
                catalog = try reader.catalog()
            } else {
                var reader = CatalogReader(root: Node(json, ""))
                catalog = try reader.catalog()
            }
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

// MARK: - Reading with paths

/// A JSON value and where it sits, so every complaint can name its place.
struct Node {
    struct Failure: Error {
        var path: String
        var reason: String
    }

    let value: JSON
    private let location: Location

    /// Where a node sits. Its text is built only when asked for (an error, a duplicate
    /// id's first place): building it for every node was most of a large catalog's load.
    private indirect enum Location {
        case root(String)
        /// A field read by name: `key` at the top level, `parent.key` below it.
        case field(Location, String)
        /// A member of an object listed whole: always `parent.key`.
        case member(Location, String)
        case element(Location, Int)

        var path: String {
            switch self {
            case .root(let path): path
            case .field(let parent, let key):
                parent.path.isEmpty ? key : "\(parent.path).\(key)"
            case .member(let parent, let key): "\(parent.path).\(key)"
            case .element(let parent, let index): "\(parent.path)[\(index)]"
            }
        }
    }

    /// The JSON path of this node, such as `products[3].price`.
    var path: String { location.path }

    init(_ value: JSON, _ path: String) {
        self.value = value
        self.location = .root(path)
    }

    private init(_ value: JSON, at location: Location) {
        self.value = value
        self.location = location
    }

    func fail(_ reason: String) -> Failure { Failure(path: path, reason: reason) }

    func child(_ key: String) -> Node? {
        value[key].map { Node($0, at: .field(location, key)) }
    }

    func required(_ key: String) throws -> Node {
        guard let node = child(key), node.value != .null else { throw fail("missing required field \"\(key)\"") }
        return node
    }

    var kindName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Fails unless this is an object (without listing its members, as ``members()`` would).
    func object() throws {
        guard case .object = value else { throw fail("expected an object, found \(kindName)") }
    }

    func members() throws -> [(key: String, node: Node)] {
        guard case .object(let members) = value else { throw fail("expected an object, found \(kindName)") }
        return members.map { ($0.key, Node($0.value, at: .member(location, $0.key))) }
    }

    func elements() throws -> [Node] {
        guard case .array(let elements) = value else { throw fail("expected an array, found \(kindName)") }
        return elements.enumerated().map { Node($1, at: .element(location, $0)) }
    }

    func string() throws -> String {
        guard case .string(let text) = value else { throw fail("expected a string, found \(kindName)") }
        return text
    }

    func nonEmptyString() throws -> String {
        let text = try string()
        // Blank when every scalar is whitespace (as trimming would leave nothing), without Foundation's
        // trimming, which copied every name of a large catalog; a real name stops at its first letter.
        guard !text.unicodeScalars.allSatisfy(CharacterSet.whitespaces.contains) else { throw fail("must not be empty") }
        return text
    }

    /// An id: text without NUL or other control characters (C0, DEL, C1), which would cut it
    /// short or pass for another id in a C string, a terminal or a log.
    func identifier() throws -> String {
        let text = try nonEmptyString()
        if let bad = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            let name = bad.value == 0 ? "NUL" : "U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4))"
            throw fail("an id must not contain control characters (\(name) found)")
        }
        return text
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw fail("expected true or false, found \(kindName)") }
        return flag
    }

    func integer() throws -> Int {
        guard case .number(let text) = value, let number = Int(text) else {
            throw fail("expected a whole number, found \(describe())")
        }
        return number
    }

    /// A price: a decimal string such as "0.99" (or a number literal, read from its exact text), not negative.
    func price() throws -> Decimal {
        let text: String
        switch value {
        case .string(let string): text = string
        case .number(let literal): text = literal
        default: throw fail("expected a price as a decimal string such as \"0.99\", found \(kindName)")
        }
        guard let price = DecimalText.parse(text) else {
            throw fail("\(describe()) is not a decimal price such as \"0.99\"")
        }
        guard price >= 0 else { throw fail("price \(describe()) is negative") }
        return price
    }

    func duration() throws -> ISODuration {
        let text = try string()
        guard let duration = ISODuration(text), duration != ISODuration() else {
            throw fail("\(describe()) is not an ISO-8601 duration such as \"P1M\", \"P1W\" or \"P3M\"")
        }
        return duration
    }

    /// A setting's value as text: a string as it is, `true`/`false`, a number's
    /// literal, a list or object as compact JSON; nil for null.
    func settingText() -> String? {
        switch value {
        case .null: nil
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number(let literal): literal
        case .array, .object: value.serialized(pretty: false)
        }
    }

    /// The value for an error message: short, quoted, with control characters escaped.
    func describe() -> String {
        if case .string(let raw) = value { return JSON.string(String(raw.prefix(60))).serialized(pretty: false) }
        return String(value.serialized(pretty: false).prefix(60))
    }
}
