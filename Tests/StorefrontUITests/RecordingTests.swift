import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// `--record FILE`: the paywall says it records, and offers `=` (an expectation for the selected row).
@Suite("recording (--record): the REC mark and the = key")
struct RecordingTests {
    private func recording(columns: Int) -> State {
        var state = loadedState(columns: columns, rows: 24)
        state.recording = "/tmp/flow.scenario"
        return state
    }

    @Test("REC on the title line of every screen, in red, at 80 and 100 columns; none without --record", arguments: [80, 100])
    func recMark(columns: Int) {
        var state = recording(columns: columns)
        for key in ["p", "t", "s"] {
            #expect(update(&state, .key(.character(Character(key)))).count <= 2)
            let canvas = render(state, timeZone: utc)
            #expect(canvas.lines[0].hasPrefix(" Storefront ● REC · store.sqlite"), "\(canvas.lines[0])")
            #expect(canvas[12, 0].text == "●" && canvas[12, 0].style.color == .red && canvas[14, 0].style.color == .red)
            #expect(canvas.lines[0].hasSuffix(columns == 80 ? "s Set" : "s Settings"), "the tabs stay: \(canvas.lines[0])")
        }
        state.recording = nil
        #expect(!render(state, timeZone: utc).lines[0].contains("REC"))
        var ascii = recording(columns: columns)
        ascii.glyphs = .ascii
        #expect(render(ascii, timeZone: utc).lines[0].hasPrefix(" Storefront * REC - store.sqlite"))
    }

    @Test("= is in the footer and the help while recording, at 80 and 100 columns; not without", arguments: [80, 100])
    func expectKeyOffered(columns: Int) {
        var state = recording(columns: columns)
        let footer = { (state: State) in render(state, timeZone: utc).lines.last ?? "" }
        #expect(footer(state).hasPrefix(" ↑↓ move  ⏎ buy  = expect  t transactions"), "\(footer(state))")
        #expect(footer(state).contains("? help  q quit"))
        #expect(update(&state, .key(.character("?"))).isEmpty)
        let help = render(state, timeZone: utc).lines.joined(separator: "\n")
        #expect(help.contains("=") && help.contains("record an expectation"), "\(help)")
        let plain = loadedState(columns: columns, rows: 24)
        #expect(!footer(plain).contains("= expect"))
        #expect(!helpLines(for: .paywall, .unicode, width: 80).joined().contains("record an expectation"))
    }

    @Test("= says what it recorded on the status line; without --record it says how to record")
    func expectKeyAnswers() {
        var state = recording(columns: 100)
        state.selection = index(of: swiftShopping)
        assertUpdate(&state, .key(.character("="))) {
            $0.flash = "Recorded an expectation: Swift Shopping as its row shows it now"
        }
        var plain = loadedState(columns: 100, rows: 24)
        assertUpdate(&plain, .key(.character("="))) {
            $0.flash = "= adds an expectation to a recording: start the paywall with --record FILE"
        }
    }
}
