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
        var parser = Parser(bytes: bytes, maxDepth: maxDepth)
        return try parser.document()
    }
}

private struct Parser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        // A UTF-8 byte order mark is allowed before the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func document() throws(JSONSyntaxError) -> JSON {
        skipWhitespace()
        guard index < bytes.count else { throw error("the file is empty, expected a JSON value") }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected \(describeHere()) after the end of the JSON value") }
        return value
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSON {
        guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeHere()), expected a value")
        }
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSON.Member] = []
        var seen = Set<String>()
        skipWhitespace()
        if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("unexpected \(describeHere()), expected a string key") }
            let keyStart = index
            let key = try parseString()
            guard seen.insert(key).inserted else {
                index = keyStart
                throw error("duplicate key \"\(key)\"")
            }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("unexpected \(describeHere()), expected ':' after key \"\(key)\"") }
            index += 1
            skipWhitespace()
            members.append(JSON.Member(key, try parseValue()))
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
            throw error("unexpected \(describeHere()), expected ',' or '}' in an object")
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSON] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "]")) { index += 1; return .array(elements) }
            throw error("unexpected \(describeHere()), expected ',' or ']' in an array")
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var scalars: [UInt8] = []
        var plainStart = index
        // ASCII without escapes, most strings, is valid UTF-8 as it stands: made into a String directly.
        var isPlainASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\"") where isPlainASCII:
                index += 1
                return String(decoding: bytes[plainStart..<(index - 1)], as: UTF8.self)
            case UInt8(ascii: "\""):
                scalars.append(contentsOf: bytes[plainStart..<index])
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else {
                    index = start
                    throw error("a string that is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                isPlainASCII = false
                scalars.append(contentsOf: bytes[plainStart..<index])
                try parseEscape(into: &scalars)
                plainStart = index
            case 0..<0x20:
                throw error("a control character (U+\(hex4(UInt16(byte)))) inside a string; write it as an escape")
            default:
                if byte >= 0x80 { isPlainASCII = false }
                index += 1
            }
        }
        index = start
        throw error("a string that never ends")
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONSyntaxError) {
        index += 1
        guard index < bytes.count else { throw error("unexpected end of file in an escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var code = UInt32(try hexQuad())
            if (0xD800..<0xDC00).contains(code) {
                guard bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
                    throw error("a lone UTF-16 surrogate in a \\u escape")
                }
                index += 2
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else { throw error("an invalid UTF-16 surrogate pair") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(code) {
                throw error("a lone UTF-16 surrogate in a \\u escape")
            }
            out.append(contentsOf: Array(String(Character(Unicode.Scalar(code)!)).utf8))
        default:
            index -= 1
            throw error("an unknown escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    mutating func hexQuad() throws(JSONSyntaxError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of file in a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("unexpected \(describeHere()) in a \\u escape, expected a hex digit")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else if digits() == 0 {
            throw error("unexpected \(describeHere()) in a number, expected a digit")
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            if digits() == 0 { throw error("unexpected \(describeHere()) in a number, expected a digit after '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            if digits() == 0 { throw error("unexpected \(describeHere()) in a number's exponent, expected a digit") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes[index...].starts(with: expected) else { throw error("unexpected \(describeHere()), expected a value") }
        index += expected.count
    }

    func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Names the byte at the current position for an error message, never echoing a control character.
    func describeHere() -> String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        var position = 0
        let end = min(index, bytes.count)
        while position < end {
            if bytes[position] == 0x0A {
                line += 1
                column = 1
            } else if bytes[position] & 0xC0 != 0x80 {
                column += 1  // count characters, not UTF-8 continuation bytes
            }
            position += 1
        }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    func hex4(_ value: UInt16) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - text.count) + text
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
