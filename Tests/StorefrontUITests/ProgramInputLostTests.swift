import Foundation
import Testing
@testable import StorefrontUI

/// A test double of a terminal whose reads fail from the third on, as a terminal taken away does
/// (EIO for a process in the background, a hang-up): nothing is ever typed.
private final class UnreadableTerminal: Terminal {
    var size = Size(columns: 80, rows: 24)
    var supportsUnicode = true
    var reads = 0

    func draw(_ canvas: Canvas) {}

    func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent? {
        reads += 1
        return nil
    }

    var inputLost: String? { reads >= 3 ? "the terminal cannot be read (Input/output error)" : nil }
}

/// Issue 30 (13): the loop stops when its terminal can no longer be read, instead of waiting for
/// keys that cannot come (it spun at full speed, and q could not reach it).
@Suite("Program, terminal lost")
struct ProgramInputLostTests {
    @Test func theLoopStopsWhenTheTerminalCannotBeRead() {
        let terminal = UnreadableTerminal()
        let program = Program(state: State(size: terminal.size, account: "default", storePath: "/nonexistent/store.sqlite",
                                           paywall: demoCatalog.paywall),
                              terminal: terminal, perform: { _ in nil })
        program.run()  // returns: the loop ended by itself
        #expect(program.stoppedBecause == "the terminal cannot be read (Input/output error)")
        #expect(terminal.reads == 3, "read on after the terminal was lost")
        #expect(!program.currentState.isRunning)
    }
}
