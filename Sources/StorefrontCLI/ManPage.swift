import Foundation
import StoreEngine

/// The manual page storefront(1), in roff, made from the command table, the
/// settings and the exit codes — the same sources as `--help` and the completions.
enum ManPage {
    /// The whole page.
    static var roff: String {
        var page: [String] = [
            ".TH STOREFRONT 1 \"\" \"storefront \(CLI.version)\" \"User Commands\"",
            ".SH NAME",
            "storefront \\- a StoreKit simulator for Linux terminals",
            ".SH SYNOPSIS",
            ".B storefront",
            "[\\fIOPTIONS\\fR]",
            ".br",
            ".B storefront",
            "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIOPERANDS\\fR] [\\fB\\-\\-json\\fR]",
            ".SH DESCRIPTION",
            text("""
                Without a command, storefront opens a paywall in the terminal: the products of a catalog \
                with localized prices, Buy and Restore Purchases, a checkmark beside everything the account \
                owns. An in-process store engine behaves like Apple's StoreKit and keeps every purchase in a \
                SQLite store file. The commands below answer the same engine from scripts; --json prints one \
                JSON document with StoreKit 2's field names.
                """),
            ".PP",
            text("Options go before or after the command, as --name value or --name=value."),
            ".SH OPTIONS",
        ]
        for option in OptionSpec.all {
            page.append(".TP")
            page.append(option.names.map { "\\fB\(escaped($0))\\fR" }.joined(separator: ", ")
                        + (option.value.map { " \\fI\(escaped($0))\\fR" } ?? ""))
            var summary = option.summary
            if !option.global {
                let users = CommandHelp.visible.filter { $0.optionNames.contains(option.long) }.map(\.name)
                summary += " (" + users.joined(separator: ", ") + ")"
            }
            page.append(text(summary.prefix(1).uppercased() + summary.dropFirst() + "."))
        }
        page.append(".SH COMMANDS")
        for command in CommandHelp.visible {
            page.append(".SS \"\(escaped(command.usage).replacingOccurrences(of: "\"", with: "\\(dq"))\"")
            page.append(text(command.summary + "."))
            page.append(".PP")
            page.append(".nf")
            page.append(contentsOf: command.details.split(separator: "\n", omittingEmptySubsequences: false).map { text(String($0)) })
            page.append(".fi")
        }
        page.append(".SH SETTINGS")
        page.append(text("Kept in the store file; change one with settings set NAME VALUE."))
        for setting in SettingDefinition.all {
            page.append(".TP")
            page.append("\\fB\(escaped(setting.name))\\fR (\(setting.scope == .account ? "per account" : "whole store")"
                        + (setting.defaultValue.isEmpty ? ")" : ", default \(escaped(setting.defaultValue)))"))
            page.append(text(setting.summary + "."))
        }
        page.append(".SH EXIT STATUS")
        for code in ExitCode.documented {
            page.append(".TP")
            page.append(".B \(code.rawValue)")
            page.append(text(code.meaning))
        }
        page.append(".SH ENVIRONMENT")
        for (name, meaning) in environment {
            page.append(".TP")
            page.append(".B \(escaped(name))")
            page.append(text(meaning))
        }
        page.append(".SH FILES")
        for (name, meaning) in files {
            page.append(".TP")
            page.append(".I \(escaped(name))")
            page.append(text(meaning))
        }
        page.append(".SH EXAMPLES")
        page.append(".nf")
        page.append(contentsOf: examples.map(text))
        page.append(".fi")
        page.append(".SH SEE ALSO")
        page.append(text("storefront COMMAND --help; the README and the guide (docs/) of the Storefront sources."))
        return page.joined(separator: "\n")
    }

    /// The environment variables storefront reads.
    static let environment: [(String, String)] = [
        ("STOREFRONT_STORE", "The store file when --store is not given."),
        ("XDG_STATE_HOME", "Where the default store file lives: $XDG_STATE_HOME/storefront/store.sqlite."),
        ("HOME", "Without XDG_STATE_HOME, the default store file is ~/.local/state/storefront/store.sqlite; an empty or relative HOME (or XDG_STATE_HOME) is passed over for the account's home in the password database."),
        ("TERM", "The paywall's terminal type; unknown, dumb or missing, it exits with 2."),
        ("LANG, LC_ALL, LC_CTYPE", "A UTF-8 locale draws the paywall with \"✓\" and \"€\"; others get an ASCII paywall."),
    ]

    /// The files storefront reads and writes.
    static let files: [(String, String)] = [
        ("./products.json", "The catalog read when --catalog is not given: a products.json or an Xcode .storekit file."),
        ("~/.local/state/storefront/store.sqlite", "The default store file (SQLite, mode 0600), its folder made when missing; with its -wal and -shm files beside it."),
    ]

    /// Command lines worth showing.
    static let examples: [String] = [
        "storefront --catalog products.json            # the paywall",
        "storefront buy com.example.premium --json     # buy from a script",
        "storefront settings set askToBuy true         # a child account",
        "storefront approve 12                         # the parent approves",
        "storefront reset app && storefront restore    # reinstall, then restore",
        "storefront clock advance P1M                  # a month of renewals",
    ]

    // MARK: - roff

    /// A line of text for roff: backslashes and dashes escaped, and a leading dot or quote made literal.
    static func text(_ line: String) -> String {
        let line = escaped(line)
        return line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }

    /// Backslashes and hyphens escaped for roff.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }
}

extension ExitCode {
    /// Every exit code, in the man page's order.
    static let documented: [ExitCode] = [.success, .failure, .noTerminal, .usage, .badCatalog, .catalogMissing, .storeUnusable, .storeBusy]

    /// What the code means, for the man page (as docs/scripting.md's table says it).
    var meaning: String {
        switch self {
        case .success: "Done."
        case .failure: "The operation failed: the StoreKit error's name is in the message (purchaseNotAllowed, productUnavailable, networkError, …); doctor found problems."
        case .noTerminal: "The paywall needs a terminal and there is none (or TERM is unknown or dumb)."
        case .usage: "Usage error, also an unknown setting or a value it does not take."
        case .badCatalog: "Bad catalog or scenario: the message names the file, line:column or JSON path, and the fault."
        case .catalogMissing: "The catalog is missing or unreadable."
        case .storeUnusable: "The store file is unusable (not a store file, another application's database, a newer schema, read-only, a missing folder); the file is left untouched."
        case .storeBusy: "The store file is busy: another process held its lock past the busy timeout. The file is fine and nothing was done; run the command again."
        }
    }
}
