import Foundation
import Glibc

/// A value in a checked JSON document and where it sits, so every complaint can name its
/// place. It is the value's offset in the document's bytes: reading it reads those bytes
/// (no tree of the document is built), and its path is found only for an error.
/// Lives inside the `withUnsafeBufferPointer` of a document `JSONReader` has checked.
package struct Node {
    package struct Failure: Error {
        package var path: String
        package var reason: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// The offsets of the document's value and of this one's first byte.
    private let root: Int
    package let start: Int
    /// The offset just past the value, when known (0 when not).
    private let end: Int

    /// The document's value, at `root` in `bytes`.
    package init(_ bytes: UnsafeBufferPointer<UInt8>, root: Int) {
        (self.bytes, self.root, self.start, self.end) = (bytes, root, root, 0)
    }

    private init(_ parent: Node, at start: Int, end: Int) {
        (bytes, root, self.start, self.end) = (parent.bytes, parent.root, start, end)
    }

    /// The node at `start` (to `end`, if known) in the same document.
    func node(at start: Int, end: Int = 0) -> Node { Node(self, at: start, end: end) }

    package func fail(_ reason: String) -> Failure { Failure(path: path, reason: reason) }

    /// A reader at this value; the document is checked, so it reads without syntax errors.
    private func read<T>(_ body: (inout JSONReader) throws(JSONSyntaxError) -> T) throws -> T {
        var reader = JSONReader(bytes, at: start)
        reader.checksDuplicateKeys = false
        do { return try body(&reader) } catch { throw fail("malformed JSON: \(error.reason)") }
    }

    private var kind: JSONReader.Kind { JSONReader(bytes, at: start).kindOfChecked }

    /// The value as a tree (for messages, settings and nulls: small values).
    package var value: JSON { (try? read { reader throws(JSONSyntaxError) in try reader.value() }) ?? .null }

    package var isNull: Bool { kind == .null }

    // MARK: Objects and arrays

    /// An object's members, listed once, for reading several by name.
    package struct Fields {
        let node: Node
        fileprivate let members: [(key: JSONReader.Key, start: Int, end: Int)]

        /// The members listed when the document was checked (the top level's, read with no pass of their own).
        package init(_ node: Node, members: [(key: JSONReader.Key, start: Int, end: Int)]) {
            (self.node, self.members) = (node, members)
        }

        /// The member named `key` (an ASCII name), if present.
        package func child(_ key: StaticString) -> Node? {
            child(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        }

        /// The member named `key` (an ASCII name, made at run time), if present.
        package func child(named key: String) -> Node? {
            var key = key
            return key.withUTF8 { child($0) }
        }

        private func child(_ name: UnsafeBufferPointer<UInt8>) -> Node? {
            let reader = JSONReader(node.bytes)
            // Lengths compared first (a key with escapes or beyond ASCII is compared as text): most members differ in length.
            for member in members
            where (!member.key.isPlainASCII || member.key.end - member.key.start == name.count) && reader.key(member.key, is: name) {
                return node.node(at: member.start, end: member.end)
            }
            return nil
        }

        package func has(_ key: StaticString) -> Bool { child(key) != nil }

        package func required(_ key: StaticString) throws -> Node {
            guard let child = child(key), !child.isNull else { throw node.fail("missing required field \"\(key)\"") }
            return child
        }
    }

    /// Fails unless this is an object; its members, for reading by name.
    @discardableResult
    package func object() throws -> Fields {
        guard kind == .object else { throw fail("expected an object, found \(kindName)") }
        var members: [(key: JSONReader.Key, start: Int, end: Int)] = []
        members.reserveCapacity(8)  // one allocation for most objects, not one for each doubling
        try read { reader throws(JSONSyntaxError) in
            try reader.object { reader, key throws(JSONSyntaxError) in
                let start = reader.index
                reader.skipChecked()
                members.append((key, start, reader.index))
            }
        }
        return Fields(self, members: members)
    }

    package func child(_ key: String) -> Node? {
        guard kind == .object else { return nil }
        return (try? object())?.child(named: key)
    }

    package func required(_ key: String) throws -> Node {
        guard let node = child(key), !node.isNull else { throw fail("missing required field \"\(key)\"") }
        return node
    }

    package func members() throws -> [(key: String, node: Node)] {
        let fields = try object()
        let reader = JSONReader(bytes)
        return fields.members.map { (reader.text(of: $0.key), node(at: $0.start, end: $0.end)) }
    }

    func elements() throws -> [Node] {
        guard kind == .array else { throw fail("expected an array, found \(kindName)") }
        var elements: [Node] = []
        try read { reader throws(JSONSyntaxError) in
            try reader.array { reader, _ throws(JSONSyntaxError) in
                let start = reader.index
                reader.skipChecked()
                elements.append(node(at: start, end: reader.index))
            }
        }
        return elements
    }

    // MARK: Scalars

    var kindName: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    package func string() throws -> String {
        guard kind == .string else { throw fail("expected a string, found \(kindName)") }
        // Its end known and no escape in it: the bytes between the quotes are its checked text.
        if end > start + 1 {
            let text = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<(end - 1)])
            if text.isEmpty || memchr(text.baseAddress!, 0x5C, text.count) == nil {
                return String(decoding: text, as: UTF8.self)
            }
        }
        return try read { reader throws(JSONSyntaxError) in try reader.string() }
    }

    func nonEmptyString() throws -> String {
        let text = try string()
        // Blank when every scalar is whitespace (as trimming would leave nothing), without Foundation's
        // trimming, which copied every name of a large catalog; a real name stops at its first letter.
        guard !text.unicodeScalars.allSatisfy(Node.isWhitespace) else { throw fail("must not be empty") }
        return text
    }

    /// `CharacterSet.whitespaces` (tab and the space separators, Zs), without making that set for every name.
    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar == " " || scalar == "\t" : scalar.properties.generalCategory == .spaceSeparator
    }

    /// An id: text without NUL or other control characters (C0, DEL, C1), which would cut it
    /// short or pass for another id in a C string, a terminal or a log.
    package func identifier() throws -> String {
        let text = try nonEmptyString()
        if let bad = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            let name = bad.value == 0 ? "NUL" : "U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4))"
            throw fail("an id must not contain control characters (\(name) found)")
        }
        return text
    }

    /// A locale identifier (`en_US`, `zh-Hans_CN`, `sr_Latn@calendar=gregorian`).
    package func localeIdentifier() throws -> String {
        let text = try nonEmptyString()
        if let problem = Node.localeProblem(text) { throw fail(problem) }
        return text
    }

    /// Why `text` is no locale identifier, or nil: ASCII letters and digits and `_ - @ = ; .` only.
    /// Anything else is refused, not shown: a bidi override (U+202E) in `en_\u{202E}US` reverses
    /// what follows it on the terminal, a control character may drive it.
    package static func localeProblem(_ text: String) -> String? {
        guard let bad = text.unicodeScalars.first(where: { !($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-@=;.".unicodeScalars.contains($0))) })
        else { return nil }
        let name = "U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4))"
        return "a locale is ASCII letters, digits and _ - @ = ; . (such as \"en_US\"), not \(JSON.string(String(text.prefix(40))).serialized(pretty: false)) (\(name) found)"
    }

    package func bool() throws -> Bool {
        guard kind == .bool else { throw fail("expected true or false, found \(kindName)") }
        return try read { reader throws(JSONSyntaxError) in try reader.literal() } ?? false
    }

    /// A number's literal text, if this is a number.
    private func numberText() throws -> String? {
        guard kind == .number else { return nil }
        return try read { reader throws(JSONSyntaxError) in try reader.number() }
    }

    package func integer() throws -> Int {
        guard let text = try numberText(), let number = Int(text) else {
            throw fail("expected a whole number, found \(describe())")
        }
        return number
    }

    /// A price: a decimal string such as "0.99" (or a number literal, read from its exact text), not negative.
    package func price() throws -> Decimal {
        let text: String
        switch kind {
        case .string: text = try string()
        case .number: text = try numberText() ?? ""
        default: throw fail("expected a price as a decimal string such as \"0.99\", found \(kindName)")
        }
        guard let price = DecimalText.parse(text) else {
            throw fail("\(describe()) is not a decimal price such as \"0.99\"")
        }
        guard price >= 0 else { throw fail("price \(describe()) is negative") }
        return price
    }

    package func duration() throws -> ISODuration {
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
    package func describe() -> String { Node.describe(value) }

    /// A value for an error message: short, quoted, with control characters escaped.
    package static func describe(_ value: JSON) -> String {
        if case .string(let raw) = value { return JSON.string(String(raw.prefix(60))).serialized(pretty: false) }
        return String(value.serialized(pretty: false).prefix(60))
    }

    // MARK: The path

    /// The JSON paths of `nodes` (values of one document), in their order, found in one walk of the
    /// document however many there are. `path` walks it for one node: a note on each of thousands of
    /// values (repeated locales, repaired prices) made loading quadratic in the file.
    package static func paths(of nodes: [Node]) -> [String] {
        guard let first = nodes.first else { return [] }
        let wanted = Set(nodes.map(\.start))
        let last = nodes.map(\.start).max() ?? 0
        var found: [Int: String] = [:]
        var reader = JSONReader(first.bytes, at: first.root)
        reader.checksDuplicateKeys = false
        enum Step { case key(JSONReader.Key), element(Int) }
        var steps: [Step] = []
        func render(_ reader: JSONReader) -> String {
            var path = ""
            for step in steps {
                switch step {
                case .key(let key): path += (path.isEmpty ? "" : ".") + reader.text(of: key)
                case .element(let offset): path += "[\(offset)]"
                }
            }
            return path
        }
        // Down every value up to the last one wanted (nothing past it can hold one), each byte read once.
        func walk(_ reader: inout JSONReader) {
            let start = reader.index
            if wanted.contains(start) { found[start] = render(reader) }
            guard start <= last else { return reader.skipChecked() }
            switch reader.kindOfChecked {
            case .object:
                try? reader.object { reader, key in
                    steps.append(.key(key))
                    walk(&reader)
                    steps.removeLast()
                }
            case .array:
                try? reader.array { reader, offset in
                    steps.append(.element(offset))
                    walk(&reader)
                    steps.removeLast()
                }
            default: reader.skipChecked()
            }
        }
        walk(&reader)
        return nodes.map { found[$0.start] ?? $0.path }
    }

    /// The JSON path of this node, such as `products[3].price`: found by walking down from
    /// the document's value, only when an error or a note names it.
    package var path: String {
        var path = ""
        var reader = JSONReader(bytes, at: root)
        reader.checksDuplicateKeys = false
        while reader.index < start {
            var next: (start: Int, component: String)?
            let contains = { (reader: JSONReader, from: Int) in from <= start && start < reader.index }
            switch reader.kindOfChecked {
            case .object:
                try? reader.object { reader, key throws(JSONSyntaxError) in
                    let from = reader.index
                    reader.skipChecked()
                    if next == nil, contains(reader, from) {
                        next = (from, (path.isEmpty ? "" : ".") + reader.text(of: key))
                    }
                }
            case .array:
                try? reader.array { reader, offset throws(JSONSyntaxError) in
                    let from = reader.index
                    reader.skipChecked()
                    if next == nil, contains(reader, from) { next = (from, "[\(offset)]") }
                }
            default: break
            }
            guard let next else { break }
            path += next.component
            reader.index = next.start
        }
        return path
    }
}
