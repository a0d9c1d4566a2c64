import Foundation
import StoreEngine
import StorefrontUI

/// The exit codes scripts rely on (sysexits.h where one fits).
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// The operation failed (a StoreKit error such as purchaseNotAllowed).
    case failure = 1
    /// The paywall needs a terminal and there is none.
    case noTerminal = 2
    case usage = 64
    case badCatalog = 65
    case catalogMissing = 66
    case storeUnusable = 74
    /// The store file stayed locked by another process past the busy timeout: the file is
    /// fine and nothing was done; try again (EX_TEMPFAIL).
    case storeBusy = 75
}

/// Where the CLI writes: standard output and standard error, or a test's buffers.
public struct Console: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void
    /// Bytes for standard output as they are (`key export --root --der`).
    public var outData: @Sendable (Data) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
                outData: (@Sendable (Data) -> Void)? = nil) {
        self.out = out
        self.err = err
        self.outData = outData ?? { FileHandle.standardOutput.write($0) }
    }

    /// The process's standard output and error.
    public static let standard = Console(
        out: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        err: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
}

extension Console {
    /// This console with each line written to standard error cleaned by ``TerminalText/sanitized(_:)``.
    func sanitizingErrors() -> Console {
        let err = self.err
        return Console(out: out, err: { text in
            err(text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { TerminalText.sanitized(String($0)) }.joined(separator: "\n"))
        }, outData: outData)
    }
}

/// Opens the paywall for an invocation; supplied by the executable, which owns the terminal.
public typealias PaywallRunner = @Sendable (Store, Invocation, Console) async -> ExitCode

/// The `storefront` command line.
public enum CLI {
    public static let version = "0.1.0"

    /// The store file used when neither `--store` nor `STOREFRONT_STORE` names one:
    /// `$XDG_STATE_HOME/storefront/store.sqlite`, else `~/.local/state/storefront/store.sqlite`.
    public static func defaultStorePath(environment: [String: String]) -> String {
        StoreLocation.defaultStorePath(environment: environment)
    }

    static let busyHint = "The file is fine and nothing was changed: run the command again in a moment (exit 75 means busy)."

    /// Runs one command line and returns its exit code.
    public static func run(_ arguments: [String], environment: [String: String], console: Console = .standard,
                           paywall: PaywallRunner? = nil) async -> ExitCode {
        // Messages quote what the user typed (ids, paths, values): every line on standard error
        // passes the one sanitiser, so no escape in an argument reaches the terminal raw.
        let console = console.sanitizingErrors()
        var invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments)
        } catch {
            console.err("storefront: \(error.description)")
            if let name = error.command, let help = CommandHelp.named(name) {
                console.err("Usage: storefront [OPTIONS] \(help.usage)")
            }
            console.err("Run 'storefront --help' for the commands and options.")
            return .usage
        }

        if let code = ToolCommands.run(invocation, console: console) { return code }
        let defaultStore = defaultStorePath(environment: environment)
        switch invocation.command {
        case .help(nil):
            console.out(CommandHelp.overview(defaultStore: defaultStore))
            return .success
        case .help(let name?):
            console.out(CommandHelp.named(name)!.text)
            return .success
        case .catalogCheck(let path):
            return CatalogCommands.check(path, json: invocation.json, console: console)
        case .catalogConvert(let path):
            return CatalogCommands.convert(path, console: console)
        case .replay(let paths, let junit, let keep):
            return await ReplayCommand.run(paths: paths, junit: junit, keep: keep, json: invocation.json, console: console)
        default:
            break
        }

        let location = StoreLocation.find(invocation, environment: environment)
        if invocation.command == .doctor {
            // Before the catalog: a store file is checked on its own, and nothing is created.
            return DoctorCommand.run(path: location.storePath, json: invocation.json, console: console)
        }

        let catalog: Catalog
        do {
            switch location.catalog {
            case .file(let path, _):
                // The paywall's recorder names the file it used (a .storekit found here).
                invocation.catalogPath = path
                catalog = try Catalog.load(contentsOf: path)
            case .none where !invocation.command.needsCatalog:
                catalog = .absent
            case .none:
                catalog = try Catalog.load(contentsOf: invocation.catalogPath)
            case .ambiguous(_, let files):
                console.err("storefront: error: \(StoreLocation.ambiguity(files))")
                return .catalogMissing
            }
        } catch let error as CatalogError {
            // The message quotes catalog text (ids, keys), which is data: never raw escapes on the terminal.
            console.err("storefront: error: \(TerminalText.sanitized(error.description))")
            switch error.kind {
            case .missing, .unreadable:
                console.err(invocation.catalogGiven
                    ? "Pass the catalog with --catalog PATH."
                    : "This command needs the catalog: pass it with --catalog PATH (default ./products.json, else the one .storekit file in this folder).")
                return .catalogMissing
            case .malformed, .invalid:
                return .badCatalog
            }
        } catch {
            console.err("storefront: error: \(error)")
            return .catalogMissing
        }
        for note in catalog.notes { console.err("storefront: note: \(TerminalText.sanitized(note))") }

        let store: Store
        do {
            store = try Store(catalog: catalog, path: location.storePath, account: invocation.account,
                              createFolder: location.createsFolder)
        } catch {
            console.err("storefront: error: store file \(error.description)")
            if error.isBusy {
                console.err(busyHint)
                return .storeBusy
            }
            console.err("The file was left as it is. Use --store PATH (or STOREFRONT_STORE) for another store file.")
            return .storeUnusable
        }

        for warning in store.warnings { console.err("storefront: warning: \(warning)") }
        let session = Session(store: store, invocation: invocation, console: console)
        do {
            // The store opens: renewals that fell due while nothing ran are made now, in order.
            // The paywall does it itself, a batch at a time, showing how far it got.
            // The account's own: other accounts' renewals (a long catch-up) are made by `clock advance`
            // and when they are used, so a purchase never waits for them.
            if invocation.command != .paywall || paywall == nil { try await store.appStore.processOwnRenewals() }
            if invocation.command.actsAsTheApp { try await session.deliverUnfinished() }
            if invocation.command == .paywall {
                if let paywall { return await paywall(store, invocation, console) }
                try await session.run(.products)
                return .success
            }
            if case .serve(let listen, let notify, let allowRemote) = invocation.command {
                return try await session.serve(listen: listen, notify: notify, allowRemote: allowRemote)
            }
            try await session.run(invocation.command)
            return .success
        } catch let error as ServeUsage {
            console.err("storefront: \(error.description)")
            return .usage
        } catch let error as StoreError {
            if invocation.json { console.out(error.json.serialized()) }
            console.err("storefront: \(error.description)")
            return .failure
        } catch let error as AccountExists {
            console.err("storefront: the account \(TerminalText.sanitized(error.name)) exists already; switch to it with: storefront accounts switch NAME")
            return .failure
        } catch let error as FamilyError {
            console.err("storefront: \(error.description)")
            return .failure
        } catch let error as RefundRequestError {
            if invocation.json { console.out(JSON.object(["error": .string(error.name), "message": .string(error.description)]).serialized()) }
            console.err("storefront: \(error.description)")
            return .failure
        } catch let error as VerifyFailed {
            console.err("storefront: failedVerification: \(error.reason)")
            return .failure
        } catch let error as SettingError {
            console.err("storefront: \(error.description)")
            return .usage
        } catch let error as SQLiteError where error.isBusy {
            console.err("storefront: busy: store file \(store.path): \(error.message) — another storefront process held it for longer than the busy timeout (30 s)")
            console.err(busyHint)
            return .storeBusy
        } catch let error as SQLiteError {
            console.err("storefront: error: store file \(store.path): \(error.message)")
            return .storeUnusable
        } catch {
            console.err("storefront: error: \(error)")
            return .failure
        }
    }
}
