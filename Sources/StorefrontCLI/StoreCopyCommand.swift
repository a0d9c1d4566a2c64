import StoreEngine
import StorefrontUI

/// `storefront store copy SOURCE DESTINATION`: a store copied between a file and PostgreSQL,
/// either way, every row and signature as it was, its seals checked on arrival. `storefront store
/// restore BACKUP`: a backup put back into the store file in one commit. Neither needs a catalog.
enum StoreCopyCommand: StorefrontCommand {
    /// `store copy SOURCE DESTINATION`: a store copied between a file and PostgreSQL.
    case copy(source: String, destination: String)
    /// `store restore BACKUP`: a backup put back into the store file.
    case restore(backup: String)

    static let help = CommandHelp(
        name: "store", usage: "store copy SOURCE DESTINATION [--json] | store restore BACKUP [--json]",
        summary: "Copy a store between a file and PostgreSQL; restore a backup",
        details: """
              copy SOURCE DESTINATION   copy every row of the store at SOURCE (a store file's
                             path, or a postgresql:// URI) to DESTINATION: a new file, or an empty
                             database or schema. Signatures and seals travel with their rows, and
                             the copy's seals are checked on arrival. SOURCE is only read. Take the
                             team's sandbox home as a file to reproduce a bug, or seed a team's
                             sandbox from a file. Exits 74 when either store cannot be used.
              restore BACKUP   put the store file BACKUP back into the store file (--store) as
                             `sqlite3 STORE ".restore BACKUP"` does: every page replaced in one
                             commit under the store's write lock, so running processes (serve, the
                             paywall) go on with the restored store as one more change. BACKUP is
                             checked first (a store file, integrity_check, every signature and
                             seal) and only read; the store may be damaged, or beside another
                             file's -wal. Never move a backup into place instead: a -wal left by a
                             killed process would be laid over it. Exits 74 when BACKUP is not
                             sound or the store cannot be written, 75 when it stayed busy.
            """,
        operands: [.words(["copy", "restore"]), .file, .file])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let args = line.args
        if args.count == 2, args[0] == "restore", !args[1].isEmpty { return .restore(backup: args[1]) }
        guard args.count == 3, args[0] == "copy", !args[1].isEmpty, !args[2].isEmpty else {
            throw UsageError(description: "store takes copy SOURCE DESTINATION, or restore BACKUP", command: line.name)
        }
        return .copy(source: args[1], destination: args[2])
    }

    func runAlone(_ context: CommandContext) async -> ExitCode? {
        switch self {
        case .copy(let source, let destination): Self.copy(source, destination, context)
        case .restore(let backup): Self.restore(backup, context)
        }
    }

    /// `store copy SOURCE DESTINATION`.
    static func copy(_ source: String, _ destination: String, _ context: CommandContext) -> ExitCode {
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

    /// `store restore BACKUP`: the backup into the store file at `--store`.
    static func restore(_ backup: String, _ context: CommandContext) -> ExitCode {
        let console = context.console
        let store = context.location.storePath
        do {
            let report = try StoreRestore.restore(from: backup, into: store)
            if context.invocation.json {
                console.out(JSON.object([
                    JSON.Member("backup", .string(backup)), JSON.Member("store", .string(StoreAddress(store).shown)),
                    JSON.Member("transactions", .integer(report.transactions)),
                ]).serialized())
            } else {
                console.out("Restored \(TerminalText.sanitized(StoreAddress(store).shown)) from \(TerminalText.sanitized(backup)): "
                            + "\(report.transactions) transaction\(report.transactions == 1 ? "" : "s").")
            }
            return .success
        } catch {
            let code: ExitCode = (error as? StoreFileError)?.isBusy == true ? .storeBusy : .storeUnusable
            let message = "\(error)"
            if context.invocation.json {
                console.out(JSON.object([CommandFailure.member(name: code.name, message: message)]).serialized())
            }
            console.err("storefront: error: \(TerminalText.sanitized(message))")
            return code
        }
    }
}
