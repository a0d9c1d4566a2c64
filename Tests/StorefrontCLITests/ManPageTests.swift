import Foundation
@testable import StorefrontCLI
import StoreEngine
import Testing

/// `storefront man` and `storefront --version`, from the built binary.
@Suite("Man page and version")
struct ManPageTests {
    /// The page's sections by name (`.SH NAME`), each the lines up to the next section.
    static func sections(_ roff: String) -> [String: [String]] {
        var sections: [String: [String]] = [:]
        var current = ""
        for line in roff.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".SH ") { current = String(line.dropFirst(4)); continue }
            sections[current, default: []].append(line)
        }
        return sections
    }

    @Test func listsEveryCommandOptionSettingAndExitCodeTheParserKnows() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["man"])
        run.expect(exit: 0)
        let sections = Self.sections(run.stdout)
        #expect(run.stdout.hasPrefix(".TH STOREFRONT 1 "))
        for name in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "SETTINGS", "EXIT STATUS", "ENVIRONMENT", "FILES"] {
            #expect(sections[name] != nil, "no \(name) section")
        }
        let headings = sections["COMMANDS", default: []].filter { $0.hasPrefix(".SS ") }
        #expect(headings.count == CommandHelp.visible.count)
        for command in CommandHelp.visible {
            #expect(headings.contains { $0.hasPrefix(".SS \"\(ManPage.escaped(command.name)) ") || $0 == ".SS \"\(command.name)\"" },
                    "\(command.name) has no heading")
        }
        #expect(!run.stdout.contains("__complete"))
        // Each option's tag line names all its spellings, escaped for roff.
        let options = sections["OPTIONS", default: []]
        for option in OptionSpec.all {
            let tag = option.names.map { "\\fB\(ManPage.escaped($0))\\fR" }.joined(separator: ", ")
            #expect(options.contains { $0.hasPrefix(tag) }, "\(option.long) is missing from OPTIONS")
        }
        for setting in SettingDefinition.all {
            #expect(sections["SETTINGS", default: []].contains { $0.hasPrefix("\\fB\(setting.name)\\fR") }, "\(setting.name)")
        }
        // Every exit code the program can return, as the guide's scripting page lists them.
        let codes = (0...255).compactMap { ExitCode(rawValue: Int32($0)) }
        #expect(codes.count == ExitCode.documented.count)
        for code in codes {
            #expect(sections["EXIT STATUS", default: []].contains(".B \(code.rawValue)"), "exit code \(code.rawValue)")
        }
        let scripting = try Docs.text("docs/scripting.md"), docs = try Docs.all()
        for code in codes { #expect(scripting.contains("| \(code.rawValue) |"), "docs/scripting.md lacks exit code \(code.rawValue)") }
        for variable in ["STOREFRONT_STORE", "XDG_STATE_HOME", "HOME", "TERM"] {
            #expect(sections["ENVIRONMENT", default: []].contains(".B \(variable)"), "\(variable)")
            #expect(variable == "HOME" || variable == "TERM" || docs.contains(variable))
        }
        #expect(sections["FILES", default: []].joined().contains("store.sqlite"))
        #expect(sections["FILES", default: []].joined().contains("products.json"))
    }

    @Test func isRoffWithoutStrayRequests() async throws {
        let roff = ManPage.roff
        let macros: Set<String> = [".TH", ".SH", ".SS", ".TP", ".PP", ".B", ".I", ".br", ".nf", ".fi"]
        for line in roff.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            let request = String(line.split(separator: " ").first ?? "")
            #expect(macros.contains(request), "a text line would be read as a request: \(line)")
        }
        // Hyphens and backslashes in text are escaped: no option turns into a typographic hyphen.
        #expect(!roff.contains(" --json"))
        #expect(roff.contains("\\-\\-json"))
        #expect(ManPage.text(".hidden") == "\\&.hidden")
        #expect(ManPage.escaped("a\\b-c") == "a\\eb\\-c")
    }

    @Test func versionNamesTheCommitOrSaysItIsUnknown() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["--version"])
        run.expect(exit: 0)
        let line = run.stdout.trimmingCharacters(in: .newlines)
        #expect(line.wholeMatch(of: /storefront \d+\.\d+\.\d+ \((commit [0-9a-f]{7,}(-dirty)?|unknown commit)\)/) != nil, "\(line)")
        #expect(line.hasPrefix("storefront \(CLI.version) "))
        // `make test` writes the commit header before building: the binary names the commit in it.
        let header = Binary.repository.appendingPathComponent(".build/storefront-commit.h")
        if let text = try? String(contentsOf: header, encoding: .utf8),
           let commit = text.firstMatch(of: /"([^"]+)"/)?.1 {
            #expect(line.contains("commit \(commit)"), "\(line) vs \(text)")
        }
    }
}
