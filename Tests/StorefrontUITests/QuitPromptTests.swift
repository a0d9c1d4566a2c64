import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// Esc asks before quitting: Enter stays, q (or the Quit button) quits.
@Suite("quit prompt")
struct QuitPromptTests {
    @Test("Esc then Enter stays; the prompt says q quits and its Quit button sends q")
    func escEnterStays() {
        var state = loadedState(columns: 80, rows: 24)
        assertUpdate(&state, .key(.escape)) { $0.sheet = .confirmQuit }
        let screen = render(state, timeZone: utc)
        let text = screen.lines.joined(separator: "\n")
        #expect(text.contains("[ Quit q ]") && text.contains("[ Stay ⏎ ]"), "\(text)")
        assertUpdate(&state, .key(.enter)) { $0.sheet = nil }
        #expect(state.isRunning)
        assertUpdate(&state, .key(.escape)) { $0.sheet = .confirmQuit }
        let row = screen.lines.firstIndex { $0.contains("[ Quit q ]") }!
        let x = screen.lines[row].distance(of: "[ Quit q ]") + 2
        let target = screen.target(atX: x, y: row)
        #expect(target == .sheetKey("q"))
        assertUpdate(&state, .click(target!)) {
            $0.sheet = nil
            $0.isRunning = false
        }
    }
}
