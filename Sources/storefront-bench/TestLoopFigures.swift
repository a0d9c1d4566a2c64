import Foundation

/// Figure 12: `make test`'s phases as its last run recorded them (scripts/timed.sh writes
/// .build/make-test-times.txt), beside issue 44's goals: six minutes for a fresh clone, 40 s of tests.
/// Read, not run: a fresh `make test` is minutes of both cores, which would skew every other figure.
enum TestLoopFigures {
    static func read(_ path: String = ".build/make-test-times.txt") -> [Figure] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let first = text.split(separator: "\n").first, first.hasPrefix("start ") else {
            return [Figure(number: "12", measure: "`make test`, wall (no record: run `make test` first)",
                           value: "–", baseline: "limit 6 min", goal: "")]
        }
        let header = first.split(separator: " ")
        let start = Double(header[1]) ?? 0
        let fresh = header.contains("fresh=yes")
        var phases: [(name: String, seconds: Double, failed: Bool)] = []
        var end = start
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count == 4, let began = Double(fields[1]), let ended = Double(fields[2]) else { continue }
            phases.append((String(fields[0]), ended - began, fields[3] != "0"))
            end = max(end, ended)
        }
        // Every phase ran and passed: a failed one stops `make test`, and its time says nothing of a green loop.
        let complete = phases.last?.name == "storeapp-tests" && !phases.contains { $0.failed }
        let wall = end - start
        let tests = phases.first { $0.name == "tests" && !$0.failed }?.seconds
        let breakdown = phases.map { "\($0.name) " + String(format: "%.0f s", $0.seconds) + ($0.failed ? " (failed)" : "") }
        var figures = [
            Figure(number: "12", measure: "`make test`, wall, \(fresh ? "fresh clone" : "not fresh: a build was there")"
                       + (complete ? "" : ", failed or stopped early") + " (deps and oracle " + String(format: "%.0f s", wall - phases.map(\.seconds).reduce(0, +)) + ")",
                   value: String(format: "%d min %02d s", Int(wall) / 60, Int(wall) % 60), baseline: "limit 6 min",
                   ratio: wall / 360, goal: "≤ 1.00", met: fresh && complete ? wall <= 360 : nil),
        ]
        if let tests {
            figures.append(Figure(number: "12a", measure: "`make test`'s test phase (`swift test`)", value: String(format: "%.0f s", tests),
                                  baseline: "limit 40 s", ratio: tests / 40, goal: "≤ 1.00", met: tests <= 40))
        }
        figures.append(Figure(number: "12b", measure: "`make test`'s phases: " + breakdown.joined(separator: ", "),
                              value: "", baseline: "", goal: ""))
        return figures
    }
}
