import StoreEngine

/// The guide's command-line page (`docs/command-line.md`), in Markdown, made from the command
/// table, the options, the settings and the exit codes — the same sources as `--help`, the man
/// page and the completions, so the page cannot list a command the parser lacks or miss one it has.
/// `make docs` writes it; a test fails when the committed page differs.
enum CommandReference {
    /// Where the page lives, from the repository's root.
    static let path = "docs/command-line.md"

    /// The whole page.
    static var markdown: String {
        var page: [String] = [
            "<!-- Made by `make docs` from the command table in Sources/StorefrontCLI: edit the code, not this page. -->",
            "# The command line",
            "",
            "```",
            "storefront [OPTIONS]                   open the paywall (needs a terminal)",
            "storefront [OPTIONS] COMMAND [--json]",
            "```",
            "",
            "Options go before or after the command, as `--name value` or `--name=value`;",
            "`storefront COMMAND --help` prints a command's entry below. What `--json` prints, the",
            "settings in detail, which commands need a catalog and what each exit code means:",
            "[Scripts: --json, settings and exit codes](scripting.md).",
            "",
            "## Commands",
            "",
            "| command | does |",
            "| --- | --- |",
        ]
        for command in CommandHelp.visible {
            page.append("| [`\(command.name)`](#\(anchor(command.name))) | \(cell(command.summary)) |")
        }
        for command in CommandHelp.visible {
            page += ["", "### \(command.name)", "", "```", command.usage, "```", "", command.summary + ".", ""]
            page += ["```"] + command.details.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) + ["```"]
        }
        page += ["", "## Options", "", "| option | does |", "| --- | --- |"]
        for option in OptionSpec.all {
            var summary = option.summary
            if !option.global {
                let users = CommandHelp.visible.filter { $0.optionNames.contains(option.long) }.map { "`\($0.name)`" }
                summary += " (" + users.joined(separator: ", ") + ")"
            }
            let tag = option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
            page.append("| `\(tag)` | \(cell(summary)) |")
        }
        page += ["", "## Settings", "", "Kept in the store file; change one with `settings set NAME VALUE`.", "",
                 "| setting | scope | default | does |", "| --- | --- | --- | --- |"]
        for setting in SettingDefinition.all {
            let scope = setting.scope == .account ? "per account" : "whole store"
            let value = setting.defaultValue.isEmpty ? "" : "`\(setting.defaultValue)`"
            page.append("| `\(setting.name)` | \(scope) | \(value) | \(cell(setting.summary)) |")
        }
        page += ["", "## Exit codes", "", "| code | meaning |", "| --- | --- |"]
        for code in ExitCode.documented {
            page.append("| \(code.rawValue) | \(cell(code.meaning)) |")
        }
        page += ["", "## Environment", "", "| variable | meaning |", "| --- | --- |"]
        for (name, meaning) in ManPage.environment {
            page.append("| `\(name)` | \(cell(meaning)) |")
        }
        page += ["", "## Files", "", "| file | meaning |", "| --- | --- |"]
        for (name, meaning) in ManPage.files {
            page.append("| `\(name)` | \(cell(meaning)) |")
        }
        return page.joined(separator: "\n") + "\n"
    }

    /// A GitHub-style heading anchor: lower case, spaces to hyphens, other punctuation dropped.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
        })
    }

    /// Text for a table cell: a bar would end the cell, a line break the row.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
