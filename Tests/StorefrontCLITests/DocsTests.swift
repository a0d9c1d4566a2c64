import Foundation
@testable import StoreLedger
@testable import StorefrontCLI
import Testing
import TestSupport

/// The README and the guide under docs/: the generated command-line page is current, every link
/// goes somewhere, every `storefront` command line they show parses, and the README keeps its promises.
@Suite("Docs")
struct DocsTests {
    @Test("docs/command-line.md is the command table as the code has it (`make docs` writes it)")
    func commandLinePageIsCurrent() throws {
        if let stale = try Docs.check(generated: CommandReference.markdown, at: CommandReference.path) {
            Issue.record(Comment(rawValue: stale))
        }
        let page = CommandReference.markdown
        for command in CommandHelp.visible {
            #expect(page.contains("\n### \(command.name)\n"), "\(command.name) has no section")
        }
        for option in OptionSpec.all { #expect(page.contains("`\(option.names.joined(separator: ", "))"), "\(option.long)") }
        for code in ExitCode.documented { #expect(page.contains("| \(code.rawValue) |"), "exit code \(code.rawValue)") }
        #expect(!page.contains("__complete"))
    }

    @Test("the scripting page's table of commands in StoreKit's terms has a row for every command, and only those")
    func scriptingTableListsEveryCommand() throws {
        let page = try Docs.text("docs/scripting.md")
        let table = page.components(separatedBy: "## The commands in StoreKit's terms").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        // The first cell of each row names its commands, each in its own code span.
        let firstCells = table.split(separator: "\n").filter { $0.hasPrefix("| `") }
            .map { $0.dropFirst(2).components(separatedBy: " | ").first ?? "" }
        let named = Set(firstCells.flatMap { $0.matches(of: /`([a-z][a-z-]*)/).map { String($0.output.1) } })
        #expect(named.count >= 30, "\(named)")
        for command in CommandHelp.visible { #expect(named.contains(command.name), "docs/scripting.md has no row for \(command.name)") }
        for name in named { #expect(CommandHelp.named(name) != nil, "docs/scripting.md lists \(name), which is no command") }
    }

    /// Only what is there: a new option needs no edit here (docs/command-line.md, generated, lists
    /// every option), but an option the page shows must be one its row's commands take.
    @Test("every option the scripting page's table shows is one its row's commands take")
    func scriptingTableShowsOnlyRealOptions() throws {
        let page = try Docs.text("docs/scripting.md")
        let table = page.components(separatedBy: "## The commands in StoreKit's terms").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        var checked = 0
        for row in table.split(separator: "\n") where row.hasPrefix("| `") {
            // The first cell: the row's commands, each in its own code span, with their options.
            let cell = row.dropFirst(2).components(separatedBy: " | ").first ?? ""
            let commands = cell.matches(of: /`([a-z][a-z-]*)/).compactMap { CommandHelp.named(String($0.output.1)) }
            for option in Set(cell.matches(of: /--[a-z][a-z-]*/).map { String($0.output) }) {
                checked += 1
                let taken = commands.contains { $0.allOptions.contains { $0.long == option } }
                #expect(taken, "docs/scripting.md's row \(cell) shows \(option), which none of its commands takes")
            }
        }
        #expect(checked >= 20, "only \(checked) options checked")
    }

    @Test("every Swift file (with or without .swift), migration and schema version a page names is as the code has it")
    func namedCodeFactsAreTrue() throws {
        let sources = FileManager.default.enumerator(atPath: Repository.root.path)?.compactMap { $0 as? String }
            .filter { ($0.hasPrefix("Sources/") || $0.hasPrefix("Tests/") || $0.hasPrefix("Examples/")) && $0.hasSuffix(".swift") } ?? []
        let fileNames = Set(sources.map { ($0 as NSString).lastPathComponent })
        let ledgerCode = try sources.filter { $0.hasPrefix("Sources/StoreLedger/") }
            .map { try String(contentsOfFile: Repository.file($0), encoding: .utf8) }.joined()
        var named = 0
        for page in Docs.pages {
            let text = try Docs.text(page)
            // An example's file (`MySheetTests.swift`) is one the reader is to write.
            for match in text.matches(of: /`(?:[A-Za-z0-9_\/.]*\/)?([A-Za-z0-9_+]+\.swift)`/) where !match.output.1.hasPrefix("My") {
                named += 1
                let exists = fileNames.contains(String(match.output.1))
                #expect(exists, "\(page) names \(match.output.1), which is no file")
            }
            // A file's base name written without `.swift` (`Store+Purchasing`): `Type+Thing` is a file's name, not a type's.
            for match in text.matches(of: /`([A-Z][A-Za-z0-9_]*\+[A-Za-z0-9_]+)`/) {
                named += 1
                let exists = fileNames.contains("\(match.output.1).swift")
                #expect(exists, "\(page) names \(match.output.1), which is no file's name")
            }
            for match in text.matches(of: /`(migrate\d+to\d+)`/) {
                #expect(ledgerCode.contains("func \(match.output.1)("), "\(page) names \(match.output.1), which StoreLedger has not")
            }
            for match in text.matches(of: /`Ledger\.schemaVersion`, (\d+)/) {
                #expect(Int64(match.output.1) == Ledger.schemaVersion, "\(page) says schema \(match.output.1); the ledger's is \(Ledger.schemaVersion)")
            }
        }
        #expect(named >= 50, "only \(named) file names found")
    }

    @Test("every target of Package.swift is in ARCHITECTURE.md's tables, with its dependencies, and on layout.md")
    func everyTargetIsOnTheMap() throws {
        let package = try String(contentsOfFile: Repository.file("Package.swift"), encoding: .utf8)
        var dependencies: [String: [String]] = [:], tests: [String] = []
        for match in package.matches(of: /\.(target|executableTarget|systemLibrary|testTarget)\(\s*name: "([^"]+)"(?:,\s*dependencies: \[([^\]]*)\])?/) {
            let name = String(match.output.2)
            if match.output.1 == "testTarget" { tests.append(name); continue }
            dependencies[name] = match.output.3.map { $0.matches(of: /"([^"]+)"/).map { String($0.output.1) } } ?? []
        }
        #expect(dependencies.count >= 25 && tests.count >= 12, "Package.swift's targets: \(dependencies.keys.sorted()), \(tests)")
        let architecture = try Docs.text("docs/ARCHITECTURE.md")
        // The target table's rows: the targets in its first cell, the dependencies in its last.
        var rows: [String: [String]] = [:]
        for row in Self.tableRows(in: architecture, after: "| target | what it holds | depends on |") {
            let cells = row.cells
            let names = cells.first?.matches(of: /`([^`]+)`/).map { String($0.output.1) } ?? []
            let named = (cells.last ?? "").replacing(/\([^)]*\)/, with: "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "—" && !$0.isEmpty }
            for name in names { rows[name] = named }
        }
        for (name, wanted) in dependencies {
            guard let row = rows[name] else {
                Issue.record("docs/ARCHITECTURE.md's target table has no row for \(name)")
                continue
            }
            let same = Set(row) == Set(wanted)
            #expect(same, "docs/ARCHITECTURE.md says \(name) depends on \(row.sorted()); Package.swift says \(wanted.sorted())")
        }
        for name in rows.keys { #expect(dependencies[name] != nil, "docs/ARCHITECTURE.md's target table names \(name), which Package.swift has not") }
        let testRows = Self.tableRows(in: architecture, after: "| target | what it tests, and with what |")
            .compactMap { $0.cells.first?.firstMatch(of: /`([^`]+)`/).map { String($0.output.1) } }
        for name in tests { #expect(testRows.contains(name), "docs/ARCHITECTURE.md's test table has no row for \(name)") }
        // layout.md's tree: each folder of Sources/ (the C targets listed on one line).
        let layout = Set(try Docs.text("docs/layout.md").split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
        for name in dependencies.keys {
            let named = layout.contains(name)
            #expect(named, "docs/layout.md does not name \(name)")
        }
    }

    @Test("a page that points to a section, table or figures of the README names a heading the README has")
    func readmeSectionsNamedExist() throws {
        let headings = Set(try Docs.text("README.md").split(separator: "\n").filter { $0.hasPrefix("## ") }
            .map { $0.dropFirst(3).lowercased() })
        #expect(headings.count >= 4, "the README's headings: \(headings)")
        for page in Docs.pages {
            let text = try Docs.text(page).replacingOccurrences(of: "\n", with: " ")
            for match in text.matches(of: /the README's ["“]?([A-Za-z][A-Za-z ]*?)["”]? (section|table|figures|heading|part)/.ignoresCase()) {
                let exists = headings.contains(match.output.1.lowercased())
                #expect(exists, "\(page) points to the README's \(match.output.1) \(match.output.2); its headings are \(headings.sorted())")
            }
        }
    }

    @Test("every table the store file's schema creates is named on ARCHITECTURE.md")
    func everyTableIsOnTheMap() throws {
        let folder = Repository.file("Sources/StoreLedger")
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        // PostgreSQL's own markers: the version, the sequences, the store's mark (a table per schema, not a store's table).
        let markers: Set<String> = ["sqlite_sequence", "store_version", "storefront_store"]
        var tables: Set<String> = []
        for file in files {
            let code = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in code.matches(of: /CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)\s*\(/) where !markers.contains(String(match.output.1)) {
                tables.insert(String(match.output.1))
            }
        }
        #expect(tables.count >= 30, "the ledger's tables: \(tables.sorted())")
        let architecture = try Docs.text("docs/ARCHITECTURE.md")
        for table in tables {
            let named = architecture.contains("`\(table)`")
            #expect(named, "docs/ARCHITECTURE.md does not name the table \(table)")
        }
    }

    @Test("every part of make stress is a row of reliability.md's table of parts, and every row a part")
    func everyStressPartHasARow() throws {
        let main = try String(contentsOfFile: Repository.file("Sources/storefront-stress/main.swift"), encoding: .utf8)
        let list = main.components(separatedBy: "let parts:").dropFirst().first?.components(separatedBy: "\n]").first ?? ""
        let parts = list.matches(of: /\n\s*\("([^"]+)",/).map { String($0.output.1) }
        #expect(parts.count >= 20, "storefront-stress's parts: \(parts)")
        let rows = Self.tableRows(in: try Docs.text("docs/reliability.md"), after: "| part | what it does | what must hold |")
            .compactMap { $0.cells.first }
        let same = Set(rows) == Set(parts) && rows.count == parts.count
        #expect(same,
                "docs/reliability.md's rows less the parts: \(Set(rows).subtracting(parts).sorted()); the parts less its rows: \(Set(parts).subtracting(rows).sorted())")
    }

    @Test("every file in scripts/ is named on layout.md")
    func everyScriptIsOnTheLayout() throws {
        let scripts = try FileManager.default.contentsOfDirectory(atPath: Repository.file("scripts")).filter { !$0.hasPrefix(".") }
        #expect(scripts.count >= 10, "scripts/: \(scripts)")
        let layout = try Docs.text("docs/layout.md")
        for script in scripts {
            let named = layout.contains(script)
            #expect(named, "docs/layout.md does not name scripts/\(script)")
        }
    }

    @Test("every relative link on every page names a file that exists, and its #anchor a heading there")
    func everyLinkResolves() throws {
        var checked = 0
        for page in Docs.pages {
            let folder = (page as NSString).deletingLastPathComponent
            for target in Self.links(in: try Docs.text(page)) {
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? page : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                checked += 1
                guard FileManager.default.fileExists(atPath: Repository.file(file)) else {
                    Issue.record("\(page) links \(target): no such file \(file)")
                    continue
                }
                if parts.count == 2 {
                    let anchors = Self.anchors(in: try Docs.text(file))
                    #expect(anchors.contains(parts[1]), "\(page) links \(target): \(file) has no heading #\(parts[1])")
                }
            }
        }
        #expect(checked >= 40, "the pages link each other")
    }

    @Test("every guide page is linked from the README or the guide's index")
    func everyPageIsReachable() throws {
        let linked = Self.links(in: try Docs.text("README.md")).map { $0.split(separator: "#").first.map(String.init) ?? "" }
            + Self.links(in: try Docs.text("docs/README.md")).map { "docs/" + ($0.split(separator: "#").first.map(String.init) ?? "") }
        for page in Docs.pages where page.hasPrefix("docs/") && page != "docs/README.md" {
            #expect(linked.contains(page), "nothing links \(page)")
        }
    }

    @Test("every `storefront …` line the docs show parses with the real parser")
    func everyCommandParses() throws {
        var parsed = 0
        // The generated page shows each command's help (checked above); CONTRIBUTING.md shows an error on purpose.
        let skipped: Set<String> = ["docs/ARCHITECTURE.md", "CONTRIBUTING.md", CommandReference.path]
        for page in Docs.pages where !skipped.contains(page) {
            for line in Self.commandLines(in: try Docs.text(page)) {
                let words = Self.words(line)
                do throws(UsageError) {
                    _ = try Invocation.parse(words)
                    parsed += 1
                } catch {
                    // Prose may name a command without its operands (`storefront catalog check`): every
                    // word is then one of that command's own, as its usage line spells them.
                    if let command = words.first.flatMap(CommandHelp.named),
                       words.allSatisfy({ command.usage.split(whereSeparator: { " []|".contains($0) }).contains(Substring($0)) }) {
                        parsed += 1
                        continue
                    }
                    Issue.record("\(page): `\(line)` does not parse: \(error.description)")
                }
            }
        }
        #expect(parsed >= 80, "the docs show commands: \(parsed)")
    }

    @Test("the README is short, shows the two set-up commands, and .ci/run runs the test command it names")
    func readmeContract() throws {
        let readme = try Docs.text("README.md")
        #expect(readme.utf8.count <= 15_500, "README.md is \(readme.utf8.count) bytes")
        #expect(readme.contains("\nmake run ") && readme.contains("\nmake test "), "the quick start's commands")
        let ci = try String(contentsOfFile: Repository.file(".ci/run"), encoding: .utf8)
        #expect(ci.split(separator: "\n").contains("make test"), ".ci/run runs the README's test command")
        let makefile = try String(contentsOfFile: Repository.file("Makefile"), encoding: .utf8)
        for target in ["run:", "test:", "docs:", "deb:"] { #expect(makefile.contains("\n\(target)"), "make \(target)") }
        // Every make target a page names is one the Makefile has.
        for page in Docs.pages where page != CommandReference.path {
            for target in try Self.makeTargets(in: Docs.text(page)) {
                #expect(makefile.contains("\n\(target):") || makefile.contains(" \(target):"), "\(page) runs make \(target)")
            }
        }
    }

    /// `make test` runs the suites with exit tests apart (Swift Testing's monitor spins for the
    /// rest of a process once one has run): each such suite is one the Makefile names.
    @Test("every suite with an exit test is in the Makefile's EXIT_TEST_SUITES")
    func exitTestSuitesRunApart() throws {
        let makefile = try String(contentsOfFile: Repository.file("Makefile"), encoding: .utf8)
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("EXIT_TEST_SUITES = ") })
        let named = Set(line.dropFirst("EXIT_TEST_SUITES = ".count).split(separator: "|").map(String.init))
        let files = FileManager.default.enumerator(atPath: Repository.file("Tests"))?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        var suites: Set<String> = []
        for file in files {
            let text = try String(contentsOfFile: Repository.file("Tests/" + file), encoding: .utf8)
            guard text.contains("await #expect(" + "processExitsWith:") else { continue }  // split: not this file
            for match in text.matches(of: /\nstruct (\w+)/) { suites.insert(String(match.output.1)) }
        }
        #expect(suites.count >= 2, "suites with exit tests: \(suites)")
        #expect(suites == named, "suites with exit tests \(suites.sorted()); the Makefile names \(named.sorted())")
    }

    // MARK: - Reading Markdown

    /// The body rows of every Markdown table whose header line is `header` (separator rows skipped).
    static func tableRows(in text: String, after header: String) -> [TableRow] {
        var rows: [TableRow] = [], inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == header { inTable = true; continue }
            guard inTable, line.hasPrefix("|") else { inTable = false; continue }
            if line.hasPrefix("|---") || line.hasPrefix("| ---") { continue }
            rows.append(TableRow(line: String(line)))
        }
        return rows
    }

    /// One row of a Markdown table.
    struct TableRow {
        var line: String
        /// Its cells, trimmed; `\|` inside a cell is no border.
        var cells: [String] {
            line.replacingOccurrences(of: "\\|", with: "\u{0}").split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().dropLast().map { $0.replacingOccurrences(of: "\u{0}", with: "|").trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The text outside fenced code blocks and inline code: where links are links.
    static func prose(_ text: String) -> String {
        var fence = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            if line.hasPrefix("```") { fence.toggle(); return nil }
            return fence ? nil : String(line).replacing(/`[^`]*`/, with: "")
        }.joined(separator: "\n")
    }

    /// The targets of `[text](target)` links and `![alt](target)` pictures.
    static func links(in text: String) -> [String] {
        prose(text).matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
    }

    /// The anchors GitHub gives a page's headings.
    static func anchors(in text: String) -> Set<String> {
        var fence = false, anchors: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { fence.toggle(); continue }
            let level = line.prefix { $0 == "#" }.count
            guard !fence, (1...6).contains(level), line.dropFirst(level).hasPrefix(" ") else { continue }
            let heading = String(line.dropFirst(level + 1)).replacingOccurrences(of: "`", with: "")
            anchors.insert(CommandReference.anchor(heading))
        }
        return anchors
    }

    /// `storefront …` command lines: in code blocks, a line starting with it (after `$ `), and
    /// inline code spans that are one; up to a pipe, `&&`, `;`, `>` or a comment.
    static func commandLines(in text: String) -> [String] {
        var fence = false, found: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fence.toggle(); continue }
            if fence {
                var body = line.trimmingCharacters(in: .whitespaces)
                if body.hasPrefix("$ ") { body.removeFirst(2) }
                if body.hasPrefix("storefront ") || body == "storefront" { found.append(body) }
            } else {
                for span in line.matches(of: /`(storefront(?: [^`]*)?)`/) { found.append(String(span.output.1)) }
            }
        }
        return found.map { line in
            var line = line
            for stop in [" | ", " \\| ", " && ", "; ", " > ", " # ", " → ", " …"] {
                if let range = line.range(of: stop) { line = String(line[..<range.lowerBound]) }
            }
            return line.trimmingCharacters(in: .whitespaces)
        }
        // A synopsis (`storefront [OPTIONS] COMMAND`) names the parts of a command line; it is not one.
        // `storefront 0.1.0 (commit …)` is output, `storefront __complete` the completions' hidden helper.
        .filter { !$0.isEmpty && !$0.contains("[") && !$0.contains("COMMAND") && !$0.contains("…") }
        .filter { !$0.hasPrefix("storefront __") && $0.dropFirst(11).first?.isNumber != true }
    }

    /// A command line's arguments after `storefront`, quotes removed; shell variables and
    /// substitutions stand for a value (`$S`, the recipes' `--store FILE`, is dropped).
    static func words(_ line: String) -> [String] {
        let unquoted = line.replacing(/"\$\([^)]*\)"|\$\([^)]*\)/, with: "VALUE")
        return unquoted.split(separator: " ").dropFirst().compactMap { word -> String? in
            let word = word.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            if word == "$S" { return nil }
            if word.hasPrefix("$") { return "VALUE" }
            // `approve|decline`, `on\|off` in a table: the first of the alternatives.
            let first = word.replacingOccurrences(of: "\\|", with: "|").split(separator: "|").first.map(String.init) ?? word
            // A transaction's or a count's placeholder stands for a number, which also serves as a product id.
            return ["ID", "N", "TRANSACTION_ID"].contains(first) ? "7" : first
        }
    }

    /// The targets of `make X` the pages run.
    static func makeTargets(in text: String) -> [String] {
        var fence = false, targets: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fence.toggle(); continue }
            if fence, let match = line.firstMatch(of: /^\s*make ([a-z][a-z-]*)/) { targets.append(String(match.output.1)) }
            if !fence { targets += line.matches(of: /`make ([a-z][a-z-]*)/).map { String($0.output.1) } }
        }
        return targets
    }
}
