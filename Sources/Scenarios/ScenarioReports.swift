import Foundation
import StoreEngine
import StorefrontUI

// MARK: - Reports

/// A replay's results as text, one block a scenario (`storefront replay`).
public enum ScenarioReportText {
    public static func lines(for result: ScenarioResult) -> [String] {
        var lines = ["\(result.passed ? "PASS" : "FAIL") \(result.path) (\(result.steps.count) steps, \(String(format: "%.2f", result.seconds)) s)"]
        if let setup = result.setupError { lines.append("  error: \(setup)") }
        for step in result.steps {
            let mark = switch step.status {
            case .passed: "  ok  "
            case .failed: "  FAIL"
            case .skipped: "  skip"
            }
            lines.append("\(mark) \(String(format: "%4d", step.line))  \(TerminalText.sanitized(step.source))")
            if step.status == .failed {
                if let expected = step.expected { lines.append("             expected: \(TerminalText.sanitized(expected))") }
                if let found = step.found {
                    let found = found.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.sanitized(String($0)) }
                    lines.append("             found:    \(found.first ?? "")")
                    lines += found.dropFirst().map { "                       " + $0 }
                }
                if !step.screen.isEmpty {
                    lines.append("             screen:")
                    lines += step.screen.map { "             " + TerminalText.sanitized($0) }
                }
            }
        }
        if let kept = result.keptStore { lines.append("  store file kept: \(kept)") }
        return lines
    }
}

/// A replay's results as `replay --json` prints them.
public enum ScenarioReportJSON {
    public static func document(_ results: [ScenarioResult]) -> JSON {
        let failed = results.filter { !$0.passed }.count
        return .object([
            "passed": .integer(Int64(results.count - failed)),
            "failed": .integer(Int64(failed)),
            "scenarios": .array(results.map { result in
                .object([
                    "file": .string(result.path),
                    "name": .string(result.name),
                    "passed": .bool(result.passed),
                    "seconds": .number(String(format: "%.3f", result.seconds)),
                    "error": result.setupError.map { .string($0) },
                    "keptStore": result.keptStore.map { .string($0) },
                    "steps": .array(result.steps.map { step in
                        .object([
                            "line": .integer(Int64(step.line)),
                            "step": .string(step.source),
                            "status": .string(step.status.rawValue),
                            "expected": step.expected.map { .string($0) },
                            "found": step.found.map { .string($0) },
                            "screen": step.screen.isEmpty ? nil : .array(step.screen.map { .string($0) }),
                        ])
                    }),
                ])
            }),
        ])
    }
}

/// JUnit XML as Jenkins, GitLab and GitHub's test reporters read it: one testcase a scenario.
public enum JUnitReport {
    public static func xml(_ results: [ScenarioResult]) -> String {
        let failures = results.filter { !$0.passed }.count
        let total = results.map(\.seconds).reduce(0, +)
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="storefront replay" tests="\(results.count)" failures="\(failures)" errors="0" time="\(String(format: "%.3f", total))">
              <testsuite name="scenarios" tests="\(results.count)" failures="\(failures)" errors="0" skipped="0" time="\(String(format: "%.3f", total))">

            """
        for result in results {
            xml += "    <testcase classname=\"scenarios\" name=\"\(escape(result.name))\" file=\"\(escape(result.path))\" time=\"\(String(format: "%.3f", result.seconds))\">\n"
            if !result.passed {
                let first = result.firstFailure
                let message = result.setupError
                    ?? first.map { "line \($0.line): \($0.source): expected \($0.expected ?? "?"), found \($0.found ?? "?")" } ?? "failed"
                xml += "      <failure message=\"\(escape(message))\" type=\"ScenarioFailure\">"
                xml += escape(ScenarioReportText.lines(for: result).joined(separator: "\n"))
                xml += "</failure>\n"
            }
            xml += "      <system-out>\(escape(ScenarioReportText.lines(for: result).joined(separator: "\n")))</system-out>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Text for an XML attribute or element; control characters XML 1.0 forbids are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
