import Foundation
import Testing

/// CONTRIBUTING.md's rule for UI tests: a step checks the effects `update` returns
/// (`assertUpdate`, or `send(_:_:expecting:)` for a step whose state the test checks after), it
/// never throws them away.
@Suite("UI tests: discarded updates")
struct UpdateDiscardRatchetTests {
    @Test("no step discards what update returns: each uses assertUpdate or send(expecting:)")
    func noDiscardedUpdates() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let own = URL(fileURLWithPath: #filePath).lastPathComponent
        // `_ = update(` and `let _ = update(`, however spaced.
        let discard = try NSRegularExpression(pattern: #"\b_\s*=\s*(try\s+|await\s+)*update\("#)
        var places: [String] = []
        var files = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".swift") && name != own {
            files += 1
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for (number, line) in text.components(separatedBy: "\n").enumerated()
            where discard.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                places.append("\(name):\(number + 1)")
            }
        }
        #expect(files >= 10, "the UI tests were not found in \(folder.path)")
        #expect(places.isEmpty, """
            Tests/StorefrontUITests discards what update returns at \(places.joined(separator: ", ")): \
            check the effects with send(&state, action, expecting: […]) or assertUpdate(&state, action, \
            effects: […]) { … } instead (CONTRIBUTING.md, AssertUpdate.swift)
            """)
    }
}
