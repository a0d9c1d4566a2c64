import Foundation
import Testing
@testable import StoreCatalog

/// Parses text; fails the test when it is not JSON.
private func parse(_ text: String, maxDepth: Int = 256) throws -> JSON {
    try JSON.parse(Array(text.utf8), maxDepth: maxDepth)
}

/// The syntax error parsing `bytes` gives; fails the test when it parses.
private func syntaxError(_ bytes: [UInt8], maxDepth: Int = 256,
                         sourceLocation: SourceLocation = #_sourceLocation) -> JSONSyntaxError? {
    do {
        let value = try JSON.parse(bytes, maxDepth: maxDepth)
        Issue.record("expected a syntax error, parsed \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

private func syntaxError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONSyntaxError? {
    syntaxError(Array(text.utf8), sourceLocation: sourceLocation)
}

@Suite("JSON parser")
struct JSONParserTests {
    @Test("scalars and containers")
    func values() throws {
        #expect(try parse("null") == .null)
        #expect(try parse("true") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("\"hi\"") == .string("hi"))
        #expect(try parse("12") == .number("12"))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object([]))
        #expect(try parse(" \t\r\n [ 1 , \"a\" , null , [ true ] , { \"k\" : false } ] \n")
                == .array([.number("1"), .string("a"), .null, .array([.bool(true)]),
                           .object([JSON.Member("k", .bool(false))])]))
    }

    @Test("a UTF-8 byte order mark before the document is allowed")
    func byteOrderMark() throws {
        #expect(try JSON.parse([0xEF, 0xBB, 0xBF] + Array("{\"a\": 1}".utf8)) == .object([JSON.Member("a", .number("1"))]))
    }

    @Test("numbers keep their exact literal text")
    func exactNumbers() throws {
        let value = try parse("[0.99, 160, -0, 1.50, 1e10, 2E-3, 4.5e+6, 0.1000000000000000000000000001, 123456789012345678901234567890]")
        #expect(value == .array([
            .number("0.99"), .number("160"), .number("-0"), .number("1.50"), .number("1e10"),
            .number("2E-3"), .number("4.5e+6"), .number("0.1000000000000000000000000001"),
            .number("123456789012345678901234567890"),
        ]))
    }

    @Test("malformed numbers are refused", arguments: ["01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-.5", "[1.e3]"])
    func badNumbers(text: String) {
        #expect(syntaxError(text) != nil)
    }

    @Test("malformed literals are refused", arguments: ["tru", "nul", "True", "NULL", "falsey", "[t]"])
    func badLiterals(text: String) {
        #expect(syntaxError(text) != nil)
    }

    @Test("escapes decode to the characters they name")
    func escapes() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""caf\u00e9 \u20AC \u0000""#) == .string("café € \u{0}"))
    }

    @Test("a surrogate pair decodes to one scalar above the BMP")
    func surrogatePairs() throws {
        #expect(try parse(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(try parse(#""\ud83d\ude00!""#) == .string("😀!"))
        #expect(try parse(#""\uD834\uDD1E""#) == .string("\u{1D11E}"))
        // Raw UTF-8 above the BMP needs no escape at all.
        #expect(try parse("\"😀\"") == .string("😀"))
    }

    @Test("bad escapes are refused", arguments: [
        #""\uD83D""#,          // lone high surrogate
        #""\uD83Dx""#,         // high surrogate followed by text
        #""\uD83D\u0041""#,    // high surrogate followed by a non-low one
        #""\uDE00""#,          // lone low surrogate
        #""\x41""#,            // unknown escape
        #""\u12""#,            // short \u escape
        #""\u12G4""#,          // non-hex digit
        #""abc\"#,             // escape at end of file
    ])
    func badEscapes(text: String) {
        #expect(syntaxError(text) != nil)
    }

    @Test("a raw control character inside a string is refused")
    func rawControlCharacter() throws {
        let error = try #require(syntaxError("[\"a\tb\"]"))
        #expect(error.reason.contains("control character"))
        #expect(error.column == 4)  // at the tab itself
    }

    @Test("object members keep document order")
    func memberOrder() throws {
        let value = try parse(#"{"zeta": 1, "alpha": 2, "mid": 3}"#)
        guard case .object(let members) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map(\.key) == ["zeta", "alpha", "mid"])
        #expect(value["alpha"] == .number("2"))
        #expect(value["missing"] == nil)
        #expect(JSON.array([])["zeta"] == nil)
        #expect(value.serialized(pretty: false) == #"{"zeta":1,"alpha":2,"mid":3}"#)
    }

    @Test("a key repeated in one object is refused, and points at the repeat")
    func duplicateKeys() throws {
        let error = try #require(syntaxError(#"{"a":1,"a":2}"#))
        #expect(error.reason.contains("duplicate"))
        #expect(error.reason.contains("\"a\""))
        #expect(error.line == 1)
        #expect(error.column == 8)
        // The same key in different objects is fine.
        #expect(throws: Never.self) { try parse(#"[{"a":1},{"a":{"a":2}}]"#) }
    }

    @Test("syntax errors carry the 1-based line and column of the fault")
    func lineAndColumn() throws {
        let missingComma = "{\n  \"a\": 1\n  \"b\": 2\n}\n"
        let error = try #require(syntaxError(missingComma))
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.reason.contains("expected ',' or '}'"))

        let trailingComma = "[\n  1,\n  2,\n]"
        let trailing = try #require(syntaxError(trailingComma))
        #expect(trailing.line == 4)
        #expect(trailing.column == 1)

        let unterminatedArray = "[\n  1,\n  2\n"
        let end = try #require(syntaxError(unterminatedArray))
        #expect(end.line == 4)
        #expect(end.column == 1)
        #expect(end.reason.contains("end of file"))

        let unterminatedString = "{\n  \"name\": \"abc\n}"
        let string = try #require(syntaxError(unterminatedString))
        #expect(string.line == 2)

        let afterValue = "{}\n\n   x"
        let extra = try #require(syntaxError(afterValue))
        #expect(extra.line == 3)
        #expect(extra.column == 4)
        #expect(extra.reason.contains("'x'"))
    }

    @Test("columns count characters, not UTF-8 bytes")
    func columnsCountCharacters() throws {
        // [ " é " ,   x  — the x is the 7th character but the 8th byte.
        let error = try #require(syntaxError("[\"é\", x]"))
        #expect(error.line == 1)
        #expect(error.column == 7)
        // CRLF line ends start a new line too.
        let crlf = try #require(syntaxError("[1,\r\n  ?]"))
        #expect(crlf.line == 2)
        #expect(crlf.column == 3)
    }

    @Test("an empty document is an error at 1:1, whitespace-only at its end")
    func emptyDocument() throws {
        let empty = try #require(syntaxError(""))
        #expect(empty.line == 1)
        #expect(empty.column == 1)
        let blank = try #require(syntaxError("  \n  "))
        #expect(blank.line == 2)
        #expect(blank.column == 3)
    }

    @Test("nesting deeper than the limit is refused, not a crash")
    func depthLimit() throws {
        let atLimit = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(throws: Never.self) { try parse(atLimit) }

        let overLimit = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        let error = try #require(syntaxError(overLimit))
        #expect(error.reason.contains("nesting"))
        #expect(error.column == 257)

        // Objects count too, and a custom limit is honoured.
        #expect(throws: Never.self) { try parse(#"{"a":{"b":1}}"#, maxDepth: 2) }
        #expect(syntaxError(Array(#"{"a":{"b":[1]}}"#.utf8), maxDepth: 2) != nil)

        // Hostile input far beyond the limit.
        let hostile = String(repeating: "[", count: 200_000)
        #expect(syntaxError(hostile)?.reason.contains("nesting") == true)
    }

    @Test("invalid UTF-8 is refused, inside and outside strings")
    func invalidUTF8() throws {
        let inString: [UInt8] = [0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D]  // ["a<FF>"]
        let error = try #require(syntaxError(inString))
        #expect(error.reason.contains("UTF-8"))
        #expect(error.line == 1)
        #expect(error.column == 2)  // the string that holds it

        let overlong: [UInt8] = [0x22, 0xC0, 0xAF, 0x22]  // an overlong "/"
        #expect(syntaxError(overlong) != nil)
        let encodedSurrogate: [UInt8] = [0x22, 0xED, 0xA0, 0x80, 0x22]  // U+D800 as UTF-8
        #expect(syntaxError(encodedSurrogate) != nil)
        let truncated: [UInt8] = [0x22, 0xE2, 0x82, 0x22]  // "€" cut short
        #expect(syntaxError(truncated) != nil)
        let inKey: [UInt8] = Array("{\"".utf8) + [0xFE] + Array("\": 1}".utf8)
        #expect(syntaxError(inKey) != nil)
        let outside: [UInt8] = [0x5B, 0xFF, 0x5D]
        let stray = try #require(syntaxError(outside))
        #expect(stray.reason.contains("0xFF"))
    }
}

@Suite("JSON serializer")
struct JSONSerializerTests {
    static let sample: JSON = .object([
        JSON.Member("name", .string("Café \"Ünïcødé\" 😀 / \\ \n\t\r")),
        JSON.Member("price", .number("0.990")),
        JSON.Member("flags", .array([.bool(true), .bool(false), .null])),
        JSON.Member("nested", .object([JSON.Member("z", .array([])), JSON.Member("a", .object([]))])),
        JSON.Member("control", .string("\u{0}\u{1}\u{1F}\u{7F}\u{85}")),
    ])

    @Test("parse(serialized) gives back the same value, pretty and compact")
    func roundTrip() throws {
        for pretty in [true, false] {
            let text = Self.sample.serialized(pretty: pretty)
            #expect(try JSON.parse(Array(text.utf8)) == Self.sample)
        }
    }

    @Test("control characters are escaped, so output is always valid JSON")
    func controlCharacters() {
        let text = JSON.string("\u{0}\u{1}\u{1F}\u{7F}\u{9F}\n\r\t\"\\").serialized(pretty: false)
        #expect(text == #""\u0000\u0001\u001f\u007f\u009f\n\r\t\"\\""#)
        // Nothing below U+0020 survives raw, in any string.
        let compact = JSONSerializerTests.sample.serialized(pretty: false)
        #expect(!compact.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test("non-ASCII text is written as is")
    func unicodeKeptRaw() {
        #expect(JSON.string("é € 😀 /").serialized() == "\"é € 😀 /\"")
    }

    @Test("pretty output uses two-space indents and one member per line")
    func prettyLayout() {
        let value = JSON.object([
            JSON.Member("a", .array([.number("1"), .bool(true)])),
            JSON.Member("b", .object([])),
            JSON.Member("c", .array([])),
        ])
        #expect(value.serialized() == """
            {
              "a": [
                1,
                true
              ],
              "b": {},
              "c": []
            }
            """)
        #expect(value.serialized(pretty: false) == #"{"a":[1,true],"b":{},"c":[]}"#)
    }

    @Test("the object builder skips absent optional fields and keeps order")
    func objectBuilder() {
        let missing: JSON? = nil
        let value = JSON.object(["id": .string("x"), "gone": missing, "count": .integer(Int64(42))])
        #expect(value.serialized(pretty: false) == #"{"id":"x","count":42}"#)
    }
}
