/// A JSON value that keeps what the catalog and the CLI need and Foundation's
/// parser loses: the order of object members, numbers as their exact literal
/// text (prices are never binary floating point), and line and column on errors.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as its literal text in the document (`"0.99"`, `"160"`).
    case number(String)
    case string(String)
    case array([JSON])
    case object([Member])

    /// One `"key": value` pair of an object, in document order.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSON
        public init(_ key: String, _ value: JSON) {
            self.key = key
            self.value = value
        }
    }

    /// The value of `key` when this is an object that has it.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Builds an object from pairs, skipping nil values (absent optional fields).
    public static func object(_ pairs: KeyValuePairs<String, JSON?>) -> JSON {
        .object(pairs.compactMap { key, value in value.map { Member(key, $0) } })
    }

    /// A number from an integer.
    public static func integer<T: BinaryInteger>(_ value: T) -> JSON { .number(String(value)) }
}

// MARK: - Parsing

/// A syntax error in a JSON document, with its 1-based line and column.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var line: Int
    public var column: Int
    public var reason: String
}

extension JSON {
    /// Parses a UTF-8 JSON document. Nesting deeper than `maxDepth` is an error,
    /// so hostile input cannot exhaust the stack.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(JSONSyntaxError) -> JSON {
        let parsed = bytes.withUnsafeBufferPointer { buffer -> Result<JSON, JSONSyntaxError> in
            var reader = JSONReader(buffer, maxDepth: maxDepth)
            do throws(JSONSyntaxError) {
                return .success(try reader.document { reader throws(JSONSyntaxError) in try reader.value() })
            } catch {
                return .failure(error)
            }
        }
        return try parsed.get()
    }
}

// MARK: - Writing

extension JSON {
    /// The document as text: pretty-printed with two-space indents, or on one line.
    public func serialized(pretty: Bool = true) -> String {
        String(decoding: serializedBytes(pretty: pretty), as: UTF8.self)
    }

    /// ``serialized(pretty:)`` as UTF-8 bytes, which signing and writing want: built as bytes,
    /// as appending scalar by scalar to a String was most of the cost of signing a payload.
    public func serializedBytes(pretty: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(to: &out, indent: pretty ? 0 : nil)
        return out
    }

    /// Pretty-printed as a value nested `indent` spaces deep: its inner lines indented so
    /// (not its first), as ``serialized(pretty:)`` prints it inside a container. For writing
    /// the elements of a long array one at a time.
    public func serialized(nestedAt indent: Int) -> String {
        var out: [UInt8] = []
        write(to: &out, indent: indent)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(to out: inout [UInt8], indent: Int?) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .number(let text): out += text.utf8
        case .string(let text): JSON.writeString(text, to: &out)
        case .array(let elements):
            writeContainer(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), count: elements.count, to: &out,
                           indent: indent) { i, out, inner in
                elements[i].write(to: &out, indent: inner)
            }
        case .object(let members):
            writeContainer(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), count: members.count, to: &out,
                           indent: indent) { i, out, inner in
                JSON.writeString(members[i].key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                members[i].value.write(to: &out, indent: inner)
            }
        }
    }

    private func writeContainer(
        open: UInt8, close: UInt8, count: Int, to out: inout [UInt8], indent: Int?,
        element: (Int, inout [UInt8], Int?) -> Void
    ) {
        out.append(open)
        guard count > 0 else { out.append(close); return }
        let inner = indent.map { $0 + 2 }
        for i in 0..<count {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if let inner {
                out.append(UInt8(ascii: "\n"))
                out += repeatElement(UInt8(ascii: " "), count: inner)
            }
            element(i, &out, inner)
        }
        if let indent {
            out.append(UInt8(ascii: "\n"))
            out += repeatElement(UInt8(ascii: " "), count: indent)
        }
        out.append(close)
    }

    /// A string literal: `"` and `\` escaped, control characters (C0, DEL and C1) as `\uXXXX`
    /// or their short escapes; everything else as its UTF-8 bytes.
    private static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var index = 0
            var run = 0  // start of the bytes not yet copied
            func escape(_ escaped: String, skipping count: Int) {
                out += UnsafeBufferPointer(rebasing: bytes[run..<index])
                out += escaped.utf8
                index += count
                run = index
            }
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""): escape("\\\"", skipping: 1)
                case UInt8(ascii: "\\"): escape("\\\\", skipping: 1)
                case UInt8(ascii: "\n"): escape("\\n", skipping: 1)
                case UInt8(ascii: "\r"): escape("\\r", skipping: 1)
                case UInt8(ascii: "\t"): escape("\\t", skipping: 1)
                case 0..<0x20, 0x7F: escape(unicodeEscape(UInt32(byte)), skipping: 1)
                case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]):
                    // U+0080…U+009F, the C1 controls.
                    escape(unicodeEscape(UInt32(bytes[index + 1])), skipping: 2)
                default: index += 1
                }
            }
            out += UnsafeBufferPointer(rebasing: bytes[run..<bytes.count])
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
