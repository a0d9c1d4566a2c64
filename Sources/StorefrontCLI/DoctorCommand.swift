import StoreEngine
import StorefrontUI

/// `storefront doctor`: checks a store file without opening it for writing and
/// says what is wrong with it. Needs no catalog.
struct DoctorCommand: StorefrontCommand {
    static let help = CommandHelp(
        name: "doctor", usage: "doctor [--store PATH] [--json]",
        summary: "Check a store file and say what is wrong with it",
        details: """
            Reads the store file (read-only: it is never changed, and no -wal or -shm file is
            made beside it) and checks: that it is a file, not empty, a SQLite database, a
            storefront store file (application_id) of a schema this build reads, SQLite's
            PRAGMA integrity_check, the tables, the signing key, every transaction's
            signature against its row (an edited row is named by its id), the file's mode
            (0600, owner only) and unfinished transactions (a note: delivered at next open).
            Exits 0 when healthy, 1 when problems were found, 74 when it cannot be read.
            """)

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self()
    }

    /// Before the catalog: a store file is checked on its own, and nothing is created.
    func runAlone(_ context: CommandContext) async -> ExitCode? {
        Self.run(path: context.location.storePath, json: context.invocation.json, console: context.console)
    }

    static func run(path: String, json: Bool, console: Console) -> ExitCode {
        let checkup = StoreDoctor.examine(path: path)
        let code: ExitCode = !checkup.readable ? .storeUnusable : checkup.problems.isEmpty ? .success : .failure
        if json {
            // A failing checkup is a failure's document too: the error member first, then the checks.
            if code != .success, case .object(let members) = checkup.json {
                let message = checkup.readable ? "\(checkup.problems.count) problem\(checkup.problems.count == 1 ? "" : "s") found"
                    : "store file \(path) cannot be read"
                console.out(JSON.object([CommandFailure.member(name: code.name, message: message)] + members).serialized())
            } else {
                console.out(checkup.json.serialized())
            }
            return code
        }
        console.out("Store file \(TerminalText.sanitized(path))")
        for passed in checkup.passed { console.out("  ok       \(passed)") }
        for problem in checkup.problems { console.out("  PROBLEM  \(TerminalText.sanitized(problem.message))") }
        for note in checkup.notes { console.out("  note     \(TerminalText.sanitized(note.message))") }
        switch code {
        case .success: console.out("Healthy.")
        case .storeUnusable: console.err("storefront: error: store file \(TerminalText.sanitized(path)) cannot be read")
        default: console.out("\(checkup.problems.count) problem\(checkup.problems.count == 1 ? "" : "s") found.")
        }
        return code
    }
}

extension StoreCheckup {
    var json: JSON {
        func findings(_ list: [Finding]) -> JSON {
            .array(list.map { finding in
                JSON.object([
                    "check": .string(finding.check),
                    "message": .string(finding.message),
                    "transactionIDs": finding.transactionIDs.isEmpty ? nil : .array(finding.transactionIDs.map { .integer($0) }),
                ])
            })
        }
        return JSON.object([
            "path": .string(path),
            "healthy": .bool(isHealthy),
            "readable": .bool(readable),
            "schemaVersion": schemaVersion.map { .integer($0) },
            "transactions": transactionCount.map { .integer($0) },
            "accounts": accountCount.map { .integer($0) },
            "passed": .array(passed.map { .string($0) }),
            "problems": findings(problems),
            "notes": findings(notes),
        ])
    }
}
