/// Strings and keys: `JSONReader`'s string tokens, their escapes, and keys compared as text.
extension JSONReader {
    /// Whether two keys are the same text (by Swift's `==`, as a tree's keys compare).
    package func same(_ a: Key, _ b: Key) -> Bool {
        if a.isPlainASCII && b.isPlainASCII {
            return a.end - a.start == b.end - b.start
                && UnsafeBufferPointer(rebasing: bytes[a.start..<a.end]).elementsEqual(UnsafeBufferPointer(rebasing: bytes[b.start..<b.end]))
        }
        return text(of: a) == text(of: b)
    }

    /// Whether a key is `name`, an ASCII name (so byte equality is text equality when the key is plain ASCII).
    package func key(_ key: Key, is name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.isPlainASCII else { return text(of: key) == String(decoding: name, as: UTF8.self) }
        let length = key.end - key.start
        guard name.count == length else { return false }
        // Byte by byte: keys are short, and memcmp's call cost more than the comparing.
        for offset in 0..<length where bytes[key.start + offset] != name[offset] { return false }
        return true
    }

    /// The text of a string token (which has been checked).
    package func text(of key: Key) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[key.start..<key.end])
        guard !key.hasEscapes else {
            var copy = self
            copy.index = key.start - 1
            return copy.decodeEscapedString()
        }
        return String(decoding: raw, as: UTF8.self)
    }

    /// Passes over the string here, checking its escapes, control characters and UTF-8.
    mutating func stringToken() throws(JSONSyntaxError) -> Key {
        let start = index
        index += 1
        var isPlainASCII = true
        var hasEscapes = false
        var scratch: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let key = Key(start: start + 1, end: index - 1, isPlainASCII: isPlainASCII, hasEscapes: hasEscapes)
                if !isPlainASCII, String(validating: UnsafeBufferPointer(rebasing: bytes[key.start..<key.end]), as: UTF8.self) == nil {
                    // Escapes write whole characters, so the text is valid UTF-8 exactly when the bytes between them are.
                    index = start
                    throw error("a string that is not valid UTF-8")
                }
                return key
            case UInt8(ascii: "\\"):
                (isPlainASCII, hasEscapes) = (false, true)
                try escape(into: &scratch)
                scratch.removeAll(keepingCapacity: true)
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

    /// The text of a checked string with escapes, from its opening quote.
    private mutating func decodeEscapedString() -> String {
        index += 1
        var out: [UInt8] = []
        while bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") {
                try? escape(into: &out)
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        index += 1
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func escape(into out: inout [UInt8]) throws(JSONSyntaxError) {
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
                guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("a lone UTF-16 surrogate in a \\u escape")
                }
                index += 2
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else { throw error("an invalid UTF-16 surrogate pair") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(code) {
                throw error("a lone UTF-16 surrogate in a \\u escape")
            }
            out.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
        default:
            index -= 1
            throw error("an unknown escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt16 {
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

    private func hex4(_ value: UInt16) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - text.count) + text
    }
}
