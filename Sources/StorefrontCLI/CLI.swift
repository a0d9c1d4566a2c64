import Foundation
import StoreEngine
import StorefrontUI

/// The exit codes scripts rely on (sysexits.h where one fits).
public enum ExitCode: Int32, Sendable, CaseIterable {
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
            // The line did not parse, but whether it asked for JSON is plain to see.
            let json = arguments.prefix { $0 != "--" }.contains("--json")
            return error.failure.report(json: json, console: console)
        }
        let code = await run(invocation, environment: environment, console: console, paywall: paywall)
        switch code {
        case .exit(let code): return code
        case .failed(let failure): return failure.report(json: invocation.json, console: console)
        }
    }

    /// How a parsed command line ended: with its code, or with a failure still to report.
    private enum Ending {
        case exit(ExitCode)
        case failed(CommandFailure)
    }

    /// How a command ends when its catalog or store could not be opened, with what to do.
    private static func openingFailure(_ error: StoreOpeningError, _ invocation: Invocation) -> Ending {
        func failed(_ message: String, _ lines: [String], _ code: ExitCode) -> Ending {
            .failed(CommandFailure(name: code.name, message: message, lines: lines, code: code))
        }
        let catalogHint = invocation.catalogGiven
            ? "Pass the catalog with --catalog PATH."
            : "This command needs the catalog: pass it with --catalog PATH (default ./products.json, else the one .storekit file in this folder, else the one this store file last ran with)."
        switch error {
        case .ambiguous(_, let files):
            let message = StoreLocation.ambiguity(files)
            return failed(message, ["storefront: error: \(message)"], .catalogMissing)
        case .noCatalog:
            return failed(error.description, ["storefront: error: \(TerminalText.sanitized(error.description))", catalogHint], .catalogMissing)
        case .catalog(let error):
            // The message quotes catalog text (ids, keys), which is data: never raw escapes on the terminal.
            let line = "storefront: error: \(TerminalText.sanitized(error.description))"
            switch error.kind {
            case .missing, .unreadable: return failed(error.description, [line, catalogHint], .catalogMissing)
            case .malformed, .invalid: return failed(error.description, [line], .badCatalog)
            }
        case .store(let error):
            let line = "storefront: error: store file \(error.description)"
            if error.isBusy { return failed("store file \(error.description)", [line, busyHint], .storeBusy) }
            return failed("store file \(error.description)",
                          [line, "The file was left as it is. Use --store PATH (or STOREFRONT_STORE) for another store file."],
                          .storeUnusable)
        }
    }

    /// Runs a parsed command line; every failure comes back to be reported in one place.
    private static func run(_ invocation: Invocation, environment: [String: String], console: Console,
                            paywall: PaywallRunner?) async -> Ending {
        var invocation = invocation
        func exit(_ code: ExitCode) -> Ending { .exit(code) }
        func failed(_ message: String, _ lines: [String], _ code: ExitCode, name: String? = nil) -> Ending {
            .failed(CommandFailure(name: name ?? code.name, message: message, lines: lines, code: code))
        }

        if invocation.command == .version {
            console.out(ToolCommands.versionLine)
            return exit(.success)
        }
        let defaultStore = defaultStorePath(environment: environment)
        let location = StoreLocation.find(invocation, environment: environment)
        // Help, the tools, catalog files, scenarios and the store file's checkup need no store.
        let context = CommandContext(invocation: invocation, console: console, location: location, defaultStore: defaultStore)
        if case .run(let command) = invocation.command, let code = await command.value.runAlone(context) { return exit(code) }

        // The catalog and the store by the engine's one rule: named, else the folder's, else the one
        // the store last ran with (for a command that needs one).
        let store: Store
        do {
            let opened = try location.open(account: invocation.account, needsCatalog: invocation.command.needsCatalog)
            store = opened.store
            // The paywall's recorder names the file it used (a .storekit found here, the store's last).
            if let path = opened.catalog.path { invocation.catalogPath = path }
        } catch {
            return openingFailure(error, invocation)
        }
        // Once, in a line: every command would otherwise repeat them all; `catalog check` lists them
        // and the paywall shows them when it opens.
        let notes = store.catalog.notes.count
        if notes > 0 {
            let file = TerminalText.sanitized(invocation.catalogPath)
            console.err("storefront: note: reading \(file) made \(notes) note\(notes == 1 ? "" : "s") "
                        + "(what it repaired or ignored); storefront catalog check \(file) lists them")
        }

        for warning in store.warnings { console.err("storefront: warning: \(warning)") }
        let session = Session(store: store, invocation: invocation, console: console)
        do {
            // The store opens: renewals that fell due while nothing ran are made now, in order.
            // The paywall does it itself, a batch at a time, showing how far it got.
            // The account's own: other accounts' renewals (a long catch-up) are made by `clock advance`
            // and when they are used, so a purchase never waits for them.
            if invocation.command != .paywall || paywall == nil { _ = try await store.appStore.processOwnRenewals() }
            // The paywall delivers at its own launch, where its note says so ("Delivered at launch (left
            // unfinished before)"); delivered here, the note went to standard error under the screen.
            if invocation.command.actsAsTheApp, invocation.command != .paywall || paywall == nil {
                try await session.deliverUnfinished()
            }
            if invocation.command == .paywall {
                if let paywall { return exit(await paywall(store, invocation, console)) }
                try await session.run(.run(AnyCommand(ProductsCommand())))
                return exit(.success)
            }
            if case .serve(let listen, let notify, let allowRemote)? = invocation.command.value(ServeCommand.self) {
                return exit(try await session.serve(listen: listen, notify: notify, allowRemote: allowRemote))
            }
            try await session.run(invocation.command)
            return exit(.success)
        } catch let error as ServeUsage {
            return failed(error.description, ["storefront: \(error.description)"], .usage)
        } catch let error as ServeFailure {
            return failed(error.description, ["storefront: \(error.description)"], .failure)
        } catch let error as StoreError {
            return .failed(error.failure)
        } catch let error as any NamedFailure {
            // Every other engine error (and the CLI's own accountExists): its one name and message.
            return failed(error.description, ["storefront: \(error.description)" + (error.hint.map { "; \($0)" } ?? "")],
                          error.isUsage ? .usage : .failure, name: error.name)
        } catch let error as VerifyFailed {
            // verify's document says so too, as before: unverified and why.
            return .failed(CommandFailure(name: "failedVerification", message: error.reason,
                                   lines: ["storefront: failedVerification: \(error.reason)"], code: .failure,
                                   extra: [JSON.Member("verification", .string("unverified")), JSON.Member("reason", .string(error.reason))]))
        } catch let error as any LedgerError where error.isBusy {
            return failed("store file \(store.path): \(error.message)",
                          ["storefront: busy: store file \(store.path): \(error.message) — another storefront process held it for longer than the busy timeout (30 s)",
                           busyHint], .storeBusy)
        } catch let error as any LedgerError {
            return failed("store file \(store.path): \(error.message)", ["storefront: error: store file \(store.path): \(error.message)"],
                          .storeUnusable)
        } catch {
            return failed("\(error)", ["storefront: error: \(error)"], .failure)
        }
    }
}
