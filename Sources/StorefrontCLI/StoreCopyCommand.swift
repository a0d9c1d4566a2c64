import StoreEngine
import StorefrontUI

/// `storefront store copy SOURCE DESTINATION`: a store copied between a file and PostgreSQL,
/// either way, every row and signature as it was, its seals checked on arrival. Needs no catalog.
enum StoreCopyCommand: StorefrontCommand {
    static let help = CommandHelp(
        name: "store", usage: "store copy SOURCE DESTINATION [--json]",
        summary: "Copy a store between a file and PostgreSQL, either way",
        details: """
              copy SOURCE DESTINATION   copy every row of the store at SOURCE (a store file's
                             path, or a postgresql:// URI) to DESTINATION: a new file, or an empty
                             database or schema. Signatures and seals travel with their rows, and
                             the copy's seals are checked on arrival. SOURCE is only read. Take the
                             team's sandbox home as a file to reproduce a bug, or seed a team's
                             sandbox from a file. Exits 74 when either store cannot be used.
            """,
        operands: [.words(["copy"]), .file, .file])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Command {
        try line.allow()
        let args = line.args
        guard args.count == 3, args[0] == "copy", !args[1].isEmpty, !args[2].isEmpty else {
            throw UsageError(description: "store takes copy SOURCE DESTINATION", command: line.name)
        }
        return .storeCopy(source: args[1], destination: args[2])
    }

    static func runAlone(_ command: Command, _ context: CommandContext) async -> ExitCode? {
        guard case .storeCopy(let source, let destination) = command else { return nil }
        let console = context.console
        let (from, to) = (StoreAddress(source).shown, StoreAddress(destination).shown)
        do {
            let report = try StoreCopy.copy(from: source, to: destination)
            let total = report.rows.values.reduce(0, +)
            if context.invocation.json {
                console.out(JSON.object([
                    JSON.Member("source", .string(from)), JSON.Member("destination", .string(to)),
                    JSON.Member("rows", .object(report.rows.sorted { $0.key < $1.key }.map { JSON.Member($0.key, .integer($0.value)) })),
                    JSON.Member("sealedTransactions", .integer(report.sealedTransactions)),
                ]).serialized())
            } else {
                console.out("Copied \(total) rows from \(TerminalText.sanitized(from)) to \(TerminalText.sanitized(to)); "
                            + "\(report.sealedTransactions) transaction seal\(report.sealedTransactions == 1 ? "" : "s") checked on arrival.")
            }
            return .success
        } catch {
            // A store's error names it without its password (StoreAddress.shown), and so does libpq's.
            let message = "\(error)"
            if context.invocation.json {
                console.out(JSON.object([CommandFailure.member(name: ExitCode.storeUnusable.name, message: message)]).serialized())
            }
            console.err("storefront: error: \(TerminalText.sanitized(message))")
            return .storeUnusable
        }
    }
}
