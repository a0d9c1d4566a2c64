import Foundation
import Testing
import TestSupport

/// `serve` prints what it was given as data: a URL's control characters escaped, never sent raw.
@Suite("serve: a receiver URL's control characters never reach the terminal raw", .serverLane)
struct ServeTerminalTextTests: ServerHarness {
    @Test("serve --notify URL with escape sequences: the listening line and each delivery line show them escaped")
    func notifyURLEscaped() async throws {
        let setup = try await setup()
        // Retitles the terminal, clears the screen, rings the bell: if it were printed raw.
        let url = "http://127.0.0.1:9/\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m"
        let server = try startServer(setup, notify: [url])
        _ = try await port(of: server)
        try await setup.sandbox.storefront(["buy", "pro"], catalog: setup.catalog).expect(exit: 0)
        _ = try await server.wait(for: #"notification 1 ONE_TIME_CHARGE → ([^\n]*): [A-Z_]+"#)
        await server.stop()
        let text = server.text
        let raw = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
        #expect(raw.isEmpty, "raw control characters: \(raw.map { String($0.value, radix: 16) }) in \(text.debugDescription)")
        #expect(text.components(separatedBy: #"\e]0;owned"#).count >= 3, "\(text)")
    }
}
