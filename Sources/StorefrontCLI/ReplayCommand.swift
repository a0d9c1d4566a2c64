import Foundation
import Scenarios
import StoreEngine
import StorefrontUI

/// `storefront replay FILE…`: each scenario on a fresh temporary store, headless.
struct ReplayCommand: StorefrontCommand {
    var paths: [String]
    var junit: String?
    var keep = false

    static let junit = Option<String>.text("--junit", value: "FILE", kind: .file, nonEmpty: "a file", "also write JUnit XML to FILE")
    static let keep = Flag("--keep", "leave a failed scenario's store file for inspection")

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
        options: [junit.spec, keep.spec], operands: [.file])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        guard !line.args.isEmpty else { throw UsageError(description: "replay needs at least one scenario FILE", command: line.name) }
        return Self(paths: line.args, junit: try line.value(junit), keep: line.has(keep))
    }

    func runAlone(_ context: CommandContext) async -> ExitCode? {
        await Self.run(paths: paths, junit: junit, keep: keep, json: context.invocation.json, console: context.console)
    }

    static func run(paths: [String], junit: String?, keep: Bool, json: Bool, console: Console,
                    hooks: ScenarioHooks = ScenarioHooks()) async -> ExitCode {
        let replay = ScenarioReplay(commands: ScenarioCommands(report: hooks.command), effects: hooks.effects)
        for path in paths {
            guard FileManager.default.fileExists(atPath: path) else {
                if json {
                    console.out(JSON.object([CommandFailure.member(name: ExitCode.catalogMissing.name,
                                                            message: "\(path): no such scenario file")]).serialized())
                }
                console.err("storefront: error: \(path): no such scenario file")
                return .catalogMissing
            }
        }
        let (loaded, faults) = replay.load(paths)
        guard faults.isEmpty else {
            for fault in faults { console.err("storefront: error: \(fault)") }
            if json {
                // Exit 65, as a malformed catalog; named for what is malformed.
                console.out(JSON.object([CommandFailure.member(name: "malformedScenario", message: faults.joined(separator: "\n")),
                                         JSON.Member("malformed", .array(faults.map { .string($0) }))]).serialized())
            }
            return .badCatalog
        }

        var results: [ScenarioResult] = []
        for (scenario, catalog) in loaded {
            let result = await replay.run(scenario, catalog: catalog, keep: keep)
            results.append(result)
            if !json { ScenarioReportText.lines(for: result).forEach(console.out) }
        }
        let failed = results.filter { !$0.passed }.count
        // Written before the report, so that --json's one document can say it could not be.
        var unwritten: String?
        if let junit {
            do {
                try Data(JUnitReport.xml(results).utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                unwritten = "cannot write \(junit): \(error.localizedDescription)"
            }
        }
        if json {
            let document = ScenarioReportJSON.document(results)
            // A failed replay carries the one error shape beside its report, as every failure does.
            let failure = unwritten ?? (failed > 0 ? "\(failed) of \(results.count) scenario\(results.count == 1 ? "" : "s") failed" : nil)
            if let failure, case .object(let members) = document {
                console.out(JSON.object([CommandFailure.member(name: ExitCode.failure.name, message: failure)] + members).serialized())
            } else {
                console.out(document.serialized())
            }
        } else {
            console.out("\(results.count - failed) of \(results.count) scenario\(results.count == 1 ? "" : "s") passed"
                        + (failed > 0 ? ", \(failed) failed" : ""))
        }
        if let unwritten {
            console.err("storefront: error: \(unwritten)")
            return .failure
        }
        return failed == 0 ? .success : .failure
    }
}
