import Testing
@testable import StorefrontUI

@Suite("Canvas and terminal text")
struct CanvasTests {
    @Test("put writes within the limit and reports the columns used")
    func putLimit() {
        var canvas = Canvas(width: 10, height: 2)
        #expect(canvas.put("abcdef", x: 2, y: 0, limit: 3) == 3)
        #expect(canvas.lines == ["  ab…", ""], "a text cut short says so with …")
        #expect(canvas.put("0123456789ABC", x: 0, y: 1) == 10, "the right edge clips")
        #expect(canvas.lines[1] == "012345678…")
        canvas.put("abc", x: 7, y: 0, limit: 3)
        #expect(canvas.lines[0] == "  ab…  abc", "a text that fits its limit is whole")
    }

    @Test("a wide character is never split at the edge")
    func wideAtEdge() {
        var canvas = Canvas(width: 5, height: 1)
        canvas.put("ab年年", x: 0, y: 0)
        #expect(canvas.lines == ["ab…"], "the second 年 would need columns 4 and 5: the first gives its place to …")
        #expect(canvas[3, 0].text == " ")
    }

    @Test("combining marks join the character before them")
    func combining() {
        var canvas = Canvas(width: 6, height: 1)
        #expect(canvas.put("e\u{301}x", x: 0, y: 0) == 2)
        #expect(canvas[0, 0].text == "e\u{301}")
        #expect(canvas[1, 0].text == "x")
    }

    @Test("control characters and bidi overrides are escaped, never stored raw")
    func sanitizing() {
        #expect(TerminalText.sanitized("a\u{1B}[31mb") == "a\\e[31mb")
        #expect(TerminalText.sanitized("x\ny\tz\r") == "x\\ny\\tz\\r")
        #expect(TerminalText.sanitized("\u{202E}abc") == "\\u{202E}abc")
        #expect(TerminalText.sanitized("\u{9B}2J") == "\\u{9B}2J", "C1 CSI")
        #expect(TerminalText.sanitized("plain €") == "plain €")
    }

    @Test("widths count terminal columns")
    func widths() {
        #expect(TerminalText.width("abc") == 3)
        #expect(TerminalText.width("年間") == 4)
        #expect(TerminalText.width("🎉") == 2)
        #expect(TerminalText.width("e\u{301}") == 1)
        #expect(TerminalText.truncated("Monthly Subscription", to: 10) == "Monthly S…")
        #expect(TerminalText.width(TerminalText.truncated("年間プラン", to: 5)) <= 5)
        #expect(TerminalText.padded("ab", to: 4) == "ab  ")
    }

    @Test("an ASCII-only canvas transliterates: accents go, currency signs become codes, the rest ?")
    func asciiOnly() {
        var canvas = Canvas(width: 24, height: 2, asciiOnly: true)
        canvas.put("39,99\u{00A0}€ ✓…", x: 0, y: 0)
        canvas.put("100 Münzen · £1 年", x: 0, y: 1)
        #expect(canvas.lines == ["39,99 EUR ?~", "100 Munzen - GBP1 ?"])
        #expect(TerminalText.ascii("Straße ¥500 “œuvre”") == "Strasse JPY500 \"oeuvre\"")
    }

    @Test("the topmost hotspot wins")
    func hotspotOrder() {
        var canvas = Canvas(width: 20, height: 3)
        canvas.addHotspot(x: 0, y: 1, width: 20, target: .product(3))
        canvas.addHotspot(x: 5, y: 1, width: 4, target: .buy(3))
        #expect(canvas.target(atX: 6, y: 1) == .buy(3))
        #expect(canvas.target(atX: 2, y: 1) == .product(3))
        #expect(canvas.target(atX: 2, y: 2) == nil)
    }

    @Test("a name is cut after its escapes are made visible: it never spills into the next column")
    func cutAfterEscapes() {
        let cut = TerminalText.truncated("Evil\u{1B}[31mRed\u{1B}[0m Name", to: 10)
        #expect(TerminalText.width(cut) <= 10)
        #expect(cut == "Evil\\e[31…")
        var canvas = Canvas(width: 12, height: 1)
        canvas.put(cut, x: 0, y: 0)
        #expect(canvas.lines[0].count <= 12)
    }

    @Test("emoji and ZWJ sequences are two columns; a flag is two; a byte-order mark is shown, not piled up")
    func emojiAndMarkWidths() {
        #expect(TerminalText.width("👨‍👩‍👧") == 2)
        #expect(TerminalText.width("❤️") == 2)
        #expect(TerminalText.width("🇩🇪") == 2)
        #expect(TerminalText.width("👍🏽") == 2)
        #expect(TerminalText.width("☕") == 2)
        #expect(TerminalText.width("é") == 1)
        var canvas = Canvas(width: 10, height: 1)
        canvas.put("a👨‍👩‍👧b", x: 0, y: 0)
        #expect(canvas.lines[0] == "a👨‍👩‍👧b")
        #expect(TerminalText.sanitized("\u{FEFF}Coins") == "\\u{FEFF}Coins")
        var twice = Canvas(width: 20, height: 1)
        twice.put("\u{FEFF}Coins", x: 0, y: 0)
        let first = twice.lines
        twice.put("\u{FEFF}Coins", x: 0, y: 0)
        #expect(twice.lines == first, "a redraw puts the same")
    }

    @Test("a text cut at the edge ends with …, never mid-word in silence")
    func cutWithEllipsis() {
        var canvas = Canvas(width: 10, height: 1)
        canvas.put("Settings · simulated", x: 0, y: 0)
        #expect(canvas.lines[0] == "Settings …")
        var limited = Canvas(width: 20, height: 1)
        limited.put("abcdefgh", x: 2, y: 0, limit: 5)
        #expect(limited.lines[0].hasPrefix("  abcd…"))
        var fits = Canvas(width: 5, height: 1)
        fits.put("abcde", x: 0, y: 0)
        #expect(fits.lines[0] == "abcde", "a text that fits is whole")
    }
}
