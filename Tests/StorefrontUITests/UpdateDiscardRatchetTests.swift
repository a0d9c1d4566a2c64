import Foundation
import Testing

/// CONTRIBUTING.md's rule for UI tests: a step checks the effects `update` returns
/// (`assertUpdate`), it does not throw them away. Older tests still do; this count may only
/// fall, as they are converted when touched.
@Suite("UI tests: discarded updates")
struct UpdateDiscardRatchetTests {
    /// The count when the rule was written down (2026-12-06). Lower it when you convert tests.
    static let allowed = 303

    @Test("no more steps discard what update returns than before; new steps use assertUpdate")
    func discardedUpdatesDoNotGrow() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let own = URL(fileURLWithPath: #filePath).lastPathComponent
        let needle = "_ = " + "update("  // split, so this file does not count itself
        var counts: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") && name != own {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let count = text.components(separatedBy: needle).count - 1
            if count > 0 { counts[name] = count }
        }
        let total = counts.values.reduce(0, +)
        let byFile = counts.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        #expect(counts.count >= 10, "the UI tests were not found in \(folder.path)")
        #expect(total <= Self.allowed, """
            Tests/StorefrontUITests has \(total) `\(needle)…)` (at most \(Self.allowed)): check the effects \
            update returns with assertUpdate(&state, action, effects: […]) { … } instead (CONTRIBUTING.md, \
            AssertUpdate.swift). By file: \(byFile)
            """)
        if total < Self.allowed {
            // Converted tests: lower `allowed` to keep the gain.
            print("UpdateDiscardRatchetTests: \(total) discarded updates; lower `allowed` from \(Self.allowed) to \(total)")
        }
    }
}
