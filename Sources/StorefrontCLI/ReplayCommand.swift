import Foundation
import StoreEngine
import StorefrontUI

/// `storefront replay FILE…`: each scenario on a fresh temporary store, headless.
enum ReplayCommand {
    static let help = CommandHelp(
        name: "replay", usage: "replay FILE... [--junit FILE] [--keep] [--json]",
        summary: "Replay scenario files as regression tests",
        details: """
            Runs each scenario on a fresh, temporary store file with the catalog its
            `catalog` line names, headless (the paywall's own update and render, no
            terminal), and reports each step: passed, or failed with what was expected and
            what was there (for `expect screen`, the screen around the line). A step that
            acts and fails unexpectedly stops its scenario; the rest are skipped.
              --junit FILE   also write JUnit XML (one testcase a scenario) for CI
              --keep         leave a failed scenario's store file and print its path
            The format: one step a line, # comments; store commands in the CLI's words
            (buy ID, clock advance P1M, refund LAST, … `as NAME` captures the transaction
            for $NAME), press KEY…, select ID, launch, wait DURATION, and expect owned ID,
            not owned ID, entitled ID, balance ID N, status GROUP STATE, renewal GROUP FIELD
            VALUE, transactions ID N, transaction REF FIELD VALUE, screen "TEXT", output
            "TEXT", error NAME, setting NAME VALUE, took >= DURATION.
            Exit 0 when all pass, 1 when any fails, 65 for a malformed scenario (its
            file:line:column and the fault; nothing runs), 66 for a missing file.
            """,
        options: ["--junit", "--keep"], operands: [.file])

    static func run(paths: [String], junit: String?, keep: Bool, json: Bool, console: Console,
                    hooks: ScenarioHooks = ScenarioHooks()) async -> ExitCode {
        var loaded: [(Scenario, Catalog)] = []
        var faults: [String] = []
        for path in paths {
            guard FileManager.default.fileExists(atPath: path) else {
                console.err("storefront: error: \(path): no such scenario file")
                return .catalogMissing
            }
            do {
                let scenario = try Scenario.load(path: path)
                do {
                    loaded.append((scenario, try Catalog.load(contentsOf: scenario.catalogPath)))
                } catch {
                    faults.append("\(path):\(scenario.catalogLine):9: the catalog does not load: \(TerminalText.sanitized(error.description))")
                }
            } catch {
                faults.append(TerminalText.sanitized(error.description))
            }
        }
        guard faults.isEmpty else {
            for fault in faults { console.err("storefront: error: \(fault)") }
            if json {
                console.out(JSON.object(["malformed": .array(faults.map { .string($0) })]).serialized())
            }
            return .badCatalog
        }

        var results: [ScenarioResult] = []
        for (scenario, catalog) in loaded {
            let result: ScenarioResult
            do {
                let run = try ScenarioRun(scenario: scenario, catalog: catalog, hooks: hooks)
                result = await run.run(keep: keep)
            } catch {
                var failed = ScenarioResult(path: scenario.path, name: scenario.name)
                failed.setupError = "cannot make a temporary store file: \(error)"
                result = failed
            }
            results.append(result)
            if !json { ScenarioReportText.lines(for: result).forEach(console.out) }
        }
        let failed = results.filter { !$0.passed }.count
        if json {
            console.out(ScenarioReportJSON.document(results).serialized())
        } else {
            console.out("\(results.count - failed) of \(results.count) scenario\(results.count == 1 ? "" : "s") passed"
                        + (failed > 0 ? ", \(failed) failed" : ""))
        }
        if let junit {
            do {
                try Data(JUnitReport.xml(results).utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                console.err("storefront: error: cannot write \(junit): \(error.localizedDescription)")
                return .failure
            }
        }
        return failed == 0 ? .success : .failure
    }
}

// MARK: - Reports

enum ScenarioReportText {
    static func lines(for result: ScenarioResult) -> [String] {
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

enum ScenarioReportJSON {
    static func document(_ results: [ScenarioResult]) -> JSON {
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
enum JUnitReport {
    static func xml(_ results: [ScenarioResult]) -> String {
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
