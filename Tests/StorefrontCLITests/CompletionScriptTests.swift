import Foundation
import StoreEngine
@testable import StorefrontCLI
import Testing

/// The completion scripts the binary prints, run in bash, zsh and fish: what each
/// offers must be exactly what the parser takes, from the same table.
@Suite("Shell completions")
struct CompletionScriptTests {
    /// Each shell's driver: reads `storefront …` lines (a trailing space starts a new
    /// word) and prints `line<TAB>candidate candidate …` for each, with the script loaded.
    static let drivers: [Shell: String] = [
        .bash: #"""
            source "$1"
            while IFS= read -r line; do
              read -ra COMP_WORDS <<< "$line"
              [[ $line == *" " ]] && COMP_WORDS+=("")
              COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
              COMPREPLY=()
              _storefront
              printf '%s\t%s\n' "$line" "${COMPREPLY[*]}"
            done
            """#,
        // zsh's completion builtins only work inside its completion system: stand-ins print what is offered.
        .zsh: #"""
            compadd() { local a; for a in "$@"; do [[ $a == -- ]] || print -r -- "$a"; done }
            _describe() { local e; for e in "${(@P)4}"; do print -r -- "${e%%:*}"; done }
            _files() { print -r -- "<files>" }
            compdef() { }
            source "$1"
            while IFS= read -r line; do
              words=("${(@s: :)line}")
              CURRENT=${#words}
              print -r -- "$line"$'\t'"${(j: :)${(f)$(_storefront)}}"
            done
            """#,
        .fish: #"""
            source $argv[1]
            while read -l line
              printf '%s\t%s\n' "$line" (string join -- ' ' (complete -C "$line" | string replace -r -- '\t.*' ''))
            end
            """#,
    ]

    /// What `shell` offers for each line, with the binary on the PATH and `folder` as the working folder.
    static func offers(_ shell: Shell, _ lines: [String], in sandbox: Sandbox) async throws -> [String: Set<String>] {
        let binary = try #require(Binary.url)
        let script = try sandbox.write("storefront.\(shell)", try await sandbox.run(["completions", shell.rawValue]).stdout)
        let driver = try sandbox.write("driver.\(shell)", drivers[shell]!)
        let input = try sandbox.write("lines.txt", lines.joined(separator: "\n") + "\n")
        let path = binary.deletingLastPathComponent().path + ":/usr/bin:/bin"
        let run = try await Sandbox.launch(URL(fileURLWithPath: "/bin/sh"),
                                           arguments: ["-c", "exec \(shell.rawValue) \"$0\" \"$1\" < \"$2\"", driver, script, input],
                                           environment: ["PATH": path, "HOME": sandbox.home], directory: sandbox.folder)
        run.expect(exit: 0)
        #expect(run.stderr.isEmpty, "\(shell) said:\n\(run.stderr)")
        var offers: [String: Set<String>] = [:]
        for row in run.stdout.split(separator: "\n", omittingEmptySubsequences: true) {
            let parts = row.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            offers[String(parts[0]), default: []].formUnion((parts.count > 1 ? parts[1] : "").split(separator: " ").map(String.init))
        }
        return offers
    }

    /// A sandbox whose working folder has the bundled products.json, and a second catalog beside it.
    static func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(atPath: Binary.catalog, toPath: sandbox.path("products.json"))
        try sandbox.write("other.json", Demo.catalog(product: """
            { "id": "alpha.one", "type": "consumable", "displayName": "One", "price": "0.99" },
            { "id": "it's \\"quoted\\"; DROP", "type": "consumable", "displayName": "Two", "price": "0.99" }
            """))
        return sandbox
    }

    @Test(arguments: Shell.allCases)
    func offersEveryCommandAndEachCommandsOptions(shell: Shell) async throws {
        let sandbox = try Self.sandbox()
        let commands = CommandHelp.visible
        let lines = ["storefront "] + commands.flatMap { ["storefront \($0.name) -", "storefront \($0.name) --"] }
        let offers = try await Self.offers(shell, lines, in: sandbox)
        #expect(offers["storefront "] == Set(commands.map(\.name)), "\(shell): the commands")
        #expect(offers["storefront "]?.contains("__complete") == false)
        for command in commands {
            let offered = offers["storefront \(command.name) -", default: []].union(offers["storefront \(command.name) --", default: []])
            let expected = Set(command.allOptions.flatMap(\.names))
            #expect(offered == expected, "\(shell): \(command.name)'s options: missing \(expected.subtracting(offered)), extra \(offered.subtracting(expected))")
        }
    }

    @Test(arguments: Shell.allCases)
    func offersProductIdsSettingsAndValuesFromTheCatalogInUse(shell: Shell) async throws {
        let sandbox = try Self.sandbox()
        let catalog = try Catalog.load(contentsOf: Binary.catalog)
        let offers = try await Self.offers(shell, [
            "storefront buy ", "storefront consume ", "storefront --catalog other.json buy ", "storefront -c other.json consume ",
            "storefront status ", "storefront auto-renew premium ", "storefront settings ", "storefront settings set ",
            "storefront settings set askToBuy ", "storefront settings set storefront ", "storefront settings set purchaseError ",
            "storefront reset ", "storefront buy alpha --outcome ", "storefront refund 4 --reason ", "storefront help ",
            "storefront completions ", "storefront --catalog missing.json buy ",
        ], in: sandbox)
        #expect(offers["storefront buy "] == Set(catalog.products.map(\.id)))
        #expect(offers["storefront consume "] == Set(catalog.products.map(\.id)))
        // The catalog typed on the line is the one asked, and its hostile id is not offered.
        #expect(offers["storefront --catalog other.json buy "] == ["alpha.one"])
        #expect(offers["storefront -c other.json consume "] == ["alpha.one"])
        #expect(offers["storefront --catalog missing.json buy "] == [])
        #expect(offers["storefront status "] == ["premium", Demo.monthly, Demo.yearly, Demo.quarterly])
        #expect(offers["storefront auto-renew premium "] == ["on", "off"])
        #expect(offers["storefront settings "] == ["set"])
        #expect(offers["storefront settings set "] == Set(SettingDefinition.all.map(\.name)))
        #expect(offers["storefront settings set askToBuy "] == ["true", "false"])
        #expect(offers["storefront settings set storefront "] == Set(catalog.storefronts.map(\.countryCode)))
        #expect(offers["storefront settings set purchaseError "]?.isSuperset(of: ["none", "networkError", "ineligibleForOffer"]) == true)
        #expect(offers["storefront reset "] == ["app", "account", "all"])
        #expect(offers["storefront buy alpha --outcome "] == Set(BuyCommand.outcomeNames))
        #expect(offers["storefront refund 4 --reason "] == ["developerIssue", "other"])
        #expect(offers["storefront help "] == Set(CommandHelp.visible.map(\.name)))
        #expect(offers["storefront completions "] == ["bash", "zsh", "fish"])
    }

    @Test func theHelperPrintsCandidatesAndNothingWithoutACatalog() async throws {
        let sandbox = try Self.sandbox()
        let products = try await sandbox.run(["__complete", "products"])
        products.expect(exit: 0)
        #expect(products.stdout.split(separator: "\n").contains(Substring(Demo.swiftShopping)))
        let missing = try await sandbox.run(["--catalog", "nowhere.json", "__complete", "products"])
        missing.expect(exit: 0)
        #expect(missing.stdout.isEmpty && missing.stderr.isEmpty, "\(missing)")
        let values = try await sandbox.run(["--catalog", "nowhere.json", "__complete", "setting-values", "timeRate"])
        #expect(values.stdout.split(separator: "\n").map(String.init) == TimeRate.allCases.map(\.rawValue))
    }
}
