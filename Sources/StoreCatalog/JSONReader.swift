/// The one JSON grammar in the tree: a pull reader over UTF-8 bytes that validates as it
/// reads. `JSON.parse` builds a tree with it; the catalog reads products straight from it,
/// with no tree of the whole document (which was most of a large catalog's load and memory).
/// The bytes are borrowed: a reader lives inside `withUnsafeBufferPointer`.
package struct JSONReader {
    package let bytes: UnsafeBufferPointer<UInt8>
    package let maxDepth: Int
    package var index: Int
    private var depth = 0
    /// Off for a document already checked whole: its objects are read without looking for duplicates again.
    var checksDuplicateKeys = true

    /// A string token: its text between the quotes, as written.
    package struct Key {
        package var start: Int
        package var end: Int
        /// No escapes and no byte above ASCII: the bytes are the text, and equal texts are equal bytes.
        var isPlainASCII: Bool
        var hasEscapes: Bool
    }

    /// A reader at `index` (a value's first byte, or 0 for a whole document).
    package init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0, maxDepth: Int = 256) {
        self.bytes = bytes
        self.index = index
        self.maxDepth = maxDepth
    }

    // MARK: Documents

    /// Reads a whole document with `body`, which reads its one value; a UTF-8 byte order mark
    /// may come first, and only whitespace after.
    package mutating func document<T>(_ body: (inout JSONReader) throws(JSONSyntaxError) -> T) throws(JSONSyntaxError) -> T {
        if index == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw error("the file is empty, expected a JSON value") }
        let value = try body(&self)
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected \(describeHere()) after the end of the JSON value") }
        return value
    }

    /// The value here as a tree.
    package mutating func value() throws(JSONSyntaxError) -> JSON {
        switch try kind() {
        case .object:
            var members: [JSON.Member] = []
            try object { reader, key throws(JSONSyntaxError) in
                members.append(JSON.Member(reader.text(of: key), try reader.value()))
            }
            return .object(members)
        case .array:
            var elements: [JSON] = []
            try array { reader, _ throws(JSONSyntaxError) in elements.append(try reader.value()) }
            return .array(elements)
        case .string: return .string(try string())
        case .number: return .number(try number())
        case .bool: return .bool(try literal() == true)
        case .null: _ = try literal(); return .null
        }
    }

    /// Passes over the value here, checking all of it (duplicate keys included), building nothing.
    mutating func skipValue() throws(JSONSyntaxError) {
        switch try kind() {
        case .object: try object { reader, _ throws(JSONSyntaxError) in try reader.skipValue() }
        case .array: try array { reader, _ throws(JSONSyntaxError) in try reader.skipValue() }
        case .string: _ = try stringToken()
        case .number: _ = try numberRange()
        case .bool, .null: _ = try literal()
        }
    }

    /// Passes over the value here in a document already checked, without checking it again.
    mutating func skipChecked() {
        var depth = 0
        repeat {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                // To the closing quote, stepping over escapes (checked already).
                index += 1
                while true {
                    index = JSONReader.nextQuoteOrBackslash(in: bytes, from: index)
                    if bytes[index] == UInt8(ascii: "\"") { break }
                    index += 2
                }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; index += 1
            case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: ":"): index += 1
            default:  // a number or a literal: up to the next delimiter
                while index < bytes.count, !JSONReader.endsScalar(bytes[index]) { index += 1 }
            }
        } while depth > 0
    }

    /// The offset of the first `"` or `\\` at or after `start`, eight bytes at a time while
    /// eight remain (most of a catalog is the text inside strings). There is one: the document is checked.
    private static func nextQuoteOrBackslash(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            // A byte of `word ^ pattern` is zero where the byte matches; the classic zero-byte test finds one.
            let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
            let found = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & highs
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while bytes[index] != UInt8(ascii: "\"") && bytes[index] != UInt8(ascii: "\\") { index += 1 }
        return index
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"): true
        default: false
        }
    }

    /// What the value here is, in a document already checked.
    var kindOfChecked: Kind {
        switch bytes[index] {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        default: .number
        }
    }

    // MARK: Values

    package enum Kind { case object, array, string, number, bool, null }

    /// What the value here is, from its first byte (reading none of it).
    package func kind() throws(JSONSyntaxError) -> Kind {
        guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw error("unexpected \(describeHere()), expected a value")
        }
    }

    /// Reads the object here: `member` is called at each value, which it must read or skip.
    package mutating func object(
        _ member: (inout JSONReader, Key) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if peek(UInt8(ascii: "}")) { index += 1; return }
        guard checksDuplicateKeys else { return try members(member, seen: nil) }
        // The first keys are kept on the stack to compare with (no allocation for an object).
        let read = withUnsafeTemporaryAllocation(of: Key.self, capacity: 16) { seen in
            Result { () throws(JSONSyntaxError) in try members(member, seen: seen) }
        }
        try read.get()
    }

    private mutating func members(
        _ member: (inout JSONReader, Key) throws(JSONSyntaxError) -> Void, seen: UnsafeMutableBufferPointer<Key>?
    ) throws(JSONSyntaxError) {
        var count = 0
        var many: Set<String>?  // past 16 keys, duplicates are found by hashing, not by comparing all pairs
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("unexpected \(describeHere()), expected a string key") }
            let keyStart = index
            let key = try stringToken()
            if let seen {
                let repeated: Bool
                if many != nil {
                    repeated = !many!.insert(text(of: key)).inserted
                } else {
                    repeated = seen[..<count].contains { same($0, key) }
                    if count < seen.count {
                        seen[count] = key
                        count += 1
                    } else {
                        many = Set(seen.map { text(of: $0) } + [text(of: key)])
                    }
                }
                if repeated {
                    index = keyStart
                    throw error("duplicate key \"\(text(of: key))\"")
                }
            }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else {
                throw error("unexpected \(describeHere()), expected ':' after key \"\(text(of: key))\"")
            }
            index += 1
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "}")) { index += 1; return }
            throw error("unexpected \(describeHere()), expected ',' or '}' in an object")
        }
    }

    /// Reads the array here: `element` is called at each element with its offset, and must read or skip it.
    package mutating func array(_ element: (inout JSONReader, Int) throws(JSONSyntaxError) -> Void) throws(JSONSyntaxError) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if peek(UInt8(ascii: "]")) { index += 1; return }
        var offset = 0
        while true {
            skipWhitespace()
            try element(&self, offset)
            offset += 1
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "]")) { index += 1; return }
            throw error("unexpected \(describeHere()), expected ',' or ']' in an array")
        }
    }

    /// Reads the string here.
    package mutating func string() throws(JSONSyntaxError) -> String {
        text(of: try stringToken())
    }

    /// Reads the number here, as its literal text.
    package mutating func number() throws(JSONSyntaxError) -> String {
        let range = try numberRange()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Reads `true`, `false` or `null` (nil).
    package mutating func literal() throws(JSONSyntaxError) -> Bool? {
        func word(_ word: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            return index + expected.count <= bytes.count
                && UnsafeBufferPointer(rebasing: bytes[index..<(index + expected.count)]).elementsEqual(expected)
        }
        let value: Bool?
        let length: Int
        switch bytes[index] {
        case UInt8(ascii: "t") where word("true"): (value, length) = (true, 4)
        case UInt8(ascii: "f") where word("false"): (value, length) = (false, 5)
        case UInt8(ascii: "n") where word("null"): (value, length) = (nil, 4)
        default: throw error("unexpected \(describeHere()), expected a value")
        }
        index += length
        return value
    }

    // MARK: Numbers and the rest

    private mutating func numberRange() throws(JSONSyntaxError) -> Range<Int> {
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
        return start..<index
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

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

    /// An error here, with its line and column (counted only now, for the error).
    package func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1  // count characters, not UTF-8 continuation bytes
            }
        }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }
}
