import CursesBackend
import Foundation
import Glibc
import Testing
@testable import StorefrontUI

/// The real ncurses backend on a headless screen: no TTY needed.
@Suite("ncurses backend", .serialized)
struct CursesBackendTests {
    func headless() throws -> CursesTerminal<ClickTarget> {
        setlocale(LC_ALL, "C.UTF-8")
        return try CursesTerminal<ClickTarget>(term: "xterm-256color", input: fopen("/dev/null", "r"),
                                  output: fopen("/dev/null", "w"), ownsFiles: true)
    }

    @Test("a rendered paywall reaches ncurses' screen cell for cell")
    func drawsCanvas() throws {
        let terminal = try headless()
        defer { terminal.end() }
        terminal.resize(to: Size(columns: 100, rows: 30))
        #expect(terminal.size == Size(columns: 100, rows: 30))
        var state = loadedState(columns: 100, rows: 30, snapshot: snapshot(owned: [purchase(swiftShopping)]))
        state.selection = index(of: swiftShopping)
        let canvas = render(state)
        terminal.draw(canvas)
        for row in 0..<30 {
            #expect(terminal.line(row) == canvas.lines[row], "row \(row)")
        }
        let selectedRow = canvas.lines.firstIndex { $0.contains("Swift Shopping") }!
        #expect(terminal.isReverse(x: 20, y: selectedRow))
        #expect(!terminal.isReverse(x: 20, y: selectedRow + 1))
    }

    @Test("drawing a changed canvas updates only what changed, and a smaller size redraws all")
    func redraws() throws {
        let terminal = try headless()
        defer { terminal.end() }
        terminal.resize(to: Size(columns: 80, rows: 24))
        var state = loadedState(columns: 80, rows: 24)
        terminal.draw(render(state))
        send(&state, .key(.down), expecting: [])
        let moved = render(state)
        terminal.draw(moved)
        #expect((0..<24).map(terminal.line) == moved.lines)

        terminal.resize(to: Size(columns: 60, rows: 16))
        send(&state, .resized(Size(columns: 60, rows: 16)), expecting: [])
        let small = render(state)
        terminal.draw(small)
        #expect((0..<16).map(terminal.line) == small.lines)
    }

    @Test("a cursor-down on the 100×30 paywall writes well under dialog --menu's 201 bytes to an xterm")
    func keyPressBytes() throws {
        setlocale(LC_ALL, "C.UTF-8")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("curses-\(getpid()).out").path
        defer { unlink(path) }
        let output = try #require(fopen(path, "w"))
        let terminal = try CursesTerminal<ClickTarget>(term: "xterm-256color", input: fopen("/dev/null", "r"), output: output,
                                                       ownsFiles: true)
        defer { terminal.end() }
        terminal.resize(to: Size(columns: 100, rows: 30))
        /// What ncurses has written to the file so far.
        func written() -> Int {
            fflush(output)
            var status = stat()
            return fstat(fileno(output), &status) == 0 ? Int(status.st_size) : -1
        }
        var state = loadedState(columns: 100, rows: 30, snapshot: snapshot(owned: [purchase(swiftShopping)]))
        state.selection = index(of: swiftShopping)
        terminal.draw(render(state))
        var bytes: [Int] = []
        for _ in 0..<3 {
            let before = written()
            #expect(update(&state, .key(.down)).isEmpty)
            terminal.draw(render(state))
            bytes.append(written() - before)
        }
        // Rows reversed across the screen wrote 260–270 a key (issue 21); the row's head and [ Buy ] 150–180
        // (the most when the row left has a green checkmark to draw again).
        #expect(bytes.allSatisfy { $0 > 0 && $0 <= 180 }, "\(bytes)")
    }

    @Test("an unknown terminal type is a clear error, not an abort")
    func unknownTerm() {
        #expect(throws: TerminalUnavailable.self) {
            _ = try CursesTerminal<ClickTarget>(term: "no-such-terminal-xyz", input: fopen("/dev/null", "r"),
                                   output: fopen("/dev/null", "w"), ownsFiles: true)
        }
    }
}
