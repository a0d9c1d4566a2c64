import Foundation
import Testing

/// Usage errors, bad catalogs and help, through the built binary: the exit
/// codes scripts rely on, messages on the right stream, never a stack trace.
@Suite("Exit codes, errors and help (process)")
struct ExitCodeTests {
    // MARK: - Usage (64)

    @Test(arguments: [
        ["bogus"],
        ["buy"],
        ["buy", "a", "b"],
        ["buy", "x", "--quantity", "0"],
        ["buy", "x", "--quantity", "-1"],
        ["buy", "x", "--quantity", "x"],
        ["products", "--colour"],
        ["reset", "nope"],
        ["settings", "set", "canMakePayments"],
        ["products", "--json=false"],
        ["--store=", "buy", "x"],
        ["help", "bogus"],
    ])
    func usageErrorsExit64WithTheMessageOnStderrOnly(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront(arguments)
        run.expect(exit: 64)
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.hasPrefix("storefront: "), "\(run)")
        #expect(run.stderr.contains("--help"), "points to the help:\n\(run)")
        // Nothing was opened or created for a command line that does not parse.
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    @Test func aUsageErrorShowsTheCommandsUsageLine() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("buy")
        run.expect(exit: 64)
        #expect(run.stderr.contains("Usage: storefront [OPTIONS] buy PRODUCT_ID"), "\(run)")
    }

    @Test func anInvalidSettingValueIsAUsageError() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("settings", "set", "canMakePayments", "maybe")
        run.expect(exit: 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("true or false"), "\(run)")
        let unknown = try await sandbox.storefront("settings", "set", "askToBuyEnabled", "true")
        unknown.expect(exit: 64)
        #expect(unknown.stderr.contains("canMakePayments"), "names the known settings:\n\(unknown)")
    }

    // MARK: - Help and version (0)

    @Test func helpPrintsUsageToStdoutWithoutACatalog() async throws {
        let sandbox = try Sandbox()
        // No products.json in the working folder: help must not need one.
        let run = try await sandbox.run(["--help"])
        run.expect(exit: 0)
        #expect(run.stderr.isEmpty, "\(run)")
        #expect(run.stdout.contains("Usage:"))
        for command in ["products", "buy", "restore", "transactions", "entitlements", "consume", "reset", "settings"] {
            #expect(run.stdout.contains("  \(command) "), "\(command) is listed")
        }
        for option in ["--catalog", "--store", "--account", "--json", "STOREFRONT_STORE"] {
            #expect(run.stdout.contains(option), "\(option) is explained")
        }
        // The default store location, as it is for this HOME.
        #expect(run.stdout.contains(sandbox.home + "/.local/state/storefront/store.sqlite"), "\(run)")
        for code in ["64", "65", "66", "74"] { #expect(run.stdout.contains(code)) }
    }

    @Test func helpShowsTheXDGStateLocationWhenSet() async throws {
        let sandbox = try Sandbox()
        let state = sandbox.path("xdg-state")
        let run = try await sandbox.run(["-h"], environment: ["XDG_STATE_HOME": state])
        run.expect(exit: 0)
        #expect(run.stdout.contains(state + "/storefront/store.sqlite"), "\(run)")
    }

    @Test(arguments: [["buy", "--help"], ["help", "buy"], ["--help", "buy"], ["buy", "-h"]])
    func commandHelp(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(arguments)
        run.expect(exit: 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.hasPrefix("Usage: storefront [OPTIONS] buy PRODUCT_ID"), "\(run)")
        #expect(run.stdout.contains("--quantity"))
        #expect(run.stdout.contains("purchaseNotAllowed"))
        #expect(!run.stdout.contains("Commands:"), "one command's help, not the overview")
    }

    @Test func everyCommandHasHelp() async throws {
        let sandbox = try Sandbox()
        for command in ["products", "restore", "transactions", "entitlements", "consume", "reset", "settings", "log"] {
            let run = try await sandbox.run([command, "--help"])
            run.expect(exit: 0)
            #expect(run.stdout.hasPrefix("Usage: storefront [OPTIONS] \(command)"), "\(run)")
        }
        let settings = try await sandbox.run(["settings", "--help"])
        #expect(settings.stdout.contains("canMakePayments") && settings.stdout.contains("storefront"))
    }

    @Test func version() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["--version"])
        run.expect(exit: 0)
        #expect(run.stdout.hasPrefix("storefront "))
        #expect(run.stdout.split(separator: "\n").count == 1)
    }

    @Test func thePaywallWithoutATerminalExits2WithAClearMessage() async throws {
        let sandbox = try Sandbox()
        // No command opens the paywall; stdin and stdout here are not terminals.
        let run = try await sandbox.run(["--catalog", Binary.catalog, "--store", sandbox.store],
                                        environment: ["TERM": "xterm-256color"])
        run.expect(exit: 2)
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("terminal"), "\(run)")
        #expect(run.stderr.contains("storefront products"), "suggests the commands:\n\(run)")
        // With --json, the one error shape on standard output (it printed nothing).
        let json = try await sandbox.run(["--catalog", Binary.catalog, "--store", sandbox.store, "--json"],
                                         environment: ["TERM": "xterm-256color"])
        json.expect(exit: 2)
        let error = try #require(try json.jsonObject()["error"] as? [String: Any], "\(json)")
        #expect(error["name"] as? String == "noTerminal" && (error["message"] as? String)?.contains("terminal") == true)
    }

    // MARK: - Catalog missing (66) or bad (65)

    @Test func aMissingCatalogExits66AndSaysHowToPassOne() async throws {
        let sandbox = try Sandbox()
        // Default ./products.json in a folder that has none.
        let run = try await sandbox.run(["--store", sandbox.store, "products"])
        run.expect(exit: 66)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("products.json"), "\(run)")
        #expect(run.stderr.contains("--catalog"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store), "no store file for a failed start")

        let named = try await sandbox.storefront("products", catalog: sandbox.path("nowhere/catalog.json"))
        named.expect(exit: 66)
        #expect(named.stderr.contains(sandbox.path("nowhere/catalog.json")), "\(named)")
    }

    @Test func aCatalogThatIsAFolderExits66() async throws {
        let sandbox = try Sandbox()
        let folder = sandbox.path("catalog.json")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = try await sandbox.storefront("products", catalog: folder)
        run.expect(exit: 66)
        #expect(run.stderr.contains(folder))
    }

    @Test func theDefaultCatalogIsReadFromTheWorkingFolder() async throws {
        let sandbox = try Sandbox()
        try sandbox.write("products.json", Demo.catalog(displayNameJSON: "Local Catalog Item"))
        let run = try await sandbox.run(["--store", sandbox.store, "products"])
        run.expect(exit: 0)
        #expect(run.stdout.contains("Local Catalog Item"), "\(run)")
    }

    @Test func malformedJSONExits65NamingFileLineAndColumn() async throws {
        let sandbox = try Sandbox()
        // Line 3: `    {"id": "x" "type": 1}` — a comma is missing before the quote at column 16.
        let catalog = try sandbox.write("broken.json", """
            {
              "products": [
                {"id": "x" "type": 1}
              ]
            }
            """)
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("\(catalog):3:16"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    @Test func truncatedJSONExits65() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("truncated.json", "{\n  \"products\": [\n")
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 65)
        #expect(run.stderr.contains(catalog + ":"), "\(run)")
    }

    @Test(arguments: [
        (#"{ "id": "a", "type": "nonConsumable", "displayName": "A", "price": "abc" }"#, "products[0].price"),
        (#"{ "id": "a", "type": "nonConsumable", "displayName": "A", "price": "-1.00" }"#, "products[0].price"),
        (#"{ "id": "a", "type": "nonConsumable", "displayName": "A", "price": 0.1 }, { "id": "b", "type": "gadget", "displayName": "B", "price": "1" }"#, "products[1].type"),
        (#"{ "id": "a", "type": "nonRenewable", "displayName": "A", "price": "1", "duration": "3 months" }"#, "products[0].duration"),
        (#"{ "id": "a", "type": "consumable", "displayName": "A", "price": "1" }, { "id": "a", "type": "consumable", "displayName": "B", "price": "1" }"#, "products[1].id"),
    ])
    func invalidCatalogsExit65NamingTheJSONPath(product: String, path: String) async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("invalid.json", Demo.catalog(product: product))
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(catalog), "names the file:\n\(run)")
        #expect(run.stderr.contains(path), "names \(path):\n\(run)")
    }

    @Test func aMissingRequiredFieldIsNamed() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("invalid.json", Demo.catalog(product: #"{ "id": "a", "type": "nonConsumable", "price": "1" }"#))
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 65)
        #expect(run.stderr.contains("displayName"), "\(run)")
    }

    @Test func aStorefrontWithoutCurrencyExits65() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("nocurrency.json", """
            { "storefronts": { "USA": { "locale": "en_US" } }, "products": [] }
            """)
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 65)
        #expect(run.stderr.contains("storefronts.USA"), "\(run)")
        #expect(run.stderr.contains("currency"), "\(run)")
    }

    @Test func aSharedSubscriptionLevelLoadsAndMovingBetweenThePlansIsACrossgrade() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("levels.json", """
            { "subscriptionGroups": [ { "id": "g", "subscriptions": [
                { "id": "s1", "displayName": "S1", "price": "1", "period": "P1M", "level": 1 },
                { "id": "s2", "displayName": "S2", "price": "2", "period": "P1Y", "level": 1 } ] } ] }
            """)
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 0)
        #expect(run.stdout.contains("s1") && run.stdout.contains("s2"), "\(run)")
        try await sandbox.storefront(["buy", "s1"], catalog: catalog).expect(exit: 0)
        // Another period at the same level: a crossgrade that waits for the renewal.
        let crossgrade = try await sandbox.storefront(["buy", "s2"], catalog: catalog)
        crossgrade.expect(exit: 0)
        #expect(crossgrade.stdout.hasPrefix("Crossgrade to S2 from ") && crossgrade.stdout.contains(": nothing is charged now."),
                "\(crossgrade)")
    }

    @Test func catalogErrorsShowCatalogTextEscaped() async throws {
        let sandbox = try Sandbox()
        let product = #"{ "id": "x\u001b[2J", "type": "consumable", "displayName": "A", "price": "1" }"#
        let catalog = try sandbox.write("dup.json", Demo.catalog(product: product + ", " + product))
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 65)
        #expect(!run.stderr.unicodeScalars.contains("\u{1B}"), "raw ESC on stderr:\n\(run)")
        // An id is text without control characters: refused at its place, before any duplicate check.
        #expect(run.stderr.contains("products[0].id: an id must not contain control characters (U+001B found)"), "\(run)")
    }
}
