import Foundation
import StoreEngine
import StorefrontUI
import TestSupport

/// A catalog written by an attacker: escape sequences, control characters,
/// bidirectional overrides and very long strings in names and descriptions, and
/// product ids with quotes and SQL. Nothing reaches the terminal raw, the layout
/// holds, and the odd ids are stored and found exactly.
enum HostileText {
    static let ids = [
        #"it's "quoted"; DROP TABLE transactions;--"#,
        "SELECT * FROM accounts WHERE ''='' OR 1=1",
        "Robert'); DELETE FROM app_owned; --",
    ]

    static let long = String(repeating: "Wide長い名前 ", count: 3_000)

    /// The catalog's JSON, serialized by the engine (so every control character is a JSON escape).
    static var catalog: String {
        func product(_ id: String, _ type: String, _ name: String, _ description: String) -> JSON {
            .object(["id": .string(id), "type": .string(type), "displayName": .string(name),
                     "description": .string(description), "price": .string("0.99")])
        }
        return JSON.object([
            "paywall": .object(["title": .string("\u{1B}]0;pwned\u{07}Title\u{1B}[2J"),
                                "subtitle": .string("\u{202E}evil subtitle"),
                                "features": .array([.string("\u{9B}31mred\u{1B}[0m"), .string(long)])]),
            "products": .array([
                product(ids[0], "nonConsumable", "\u{1B}[2J\u{1B}]0;pwned\u{07}Evil \u{202E}txt.exe", "\u{1B}[H\u{9B}31m" + long),
                product(ids[1], "consumable", long, "line\r\nbreak\ttab\u{0}nul\u{7F}del"),
                product(ids[2], "nonConsumable", "\u{2066}\u{2067}isolates\u{2069}\u{200F}rtl\u{061C}", "\u{1B}P+q\u{1B}\\dcs"),
            ]),
        ]).serialized()
    }

    /// The first scalar a terminal would act on rather than show, if any.
    static func raw(_ text: String) -> String? {
        text.unicodeScalars.first { scalar in
            scalar != "\n" && TerminalText.sanitized(String(scalar)) != String(scalar)
        }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("hostile")
        let catalogPath = folder + "/hostile.json"
        let store = folder + "/store.sqlite"
        _ = FileManager.default.createFile(atPath: catalogPath, contents: Data(catalog.utf8))
        var outputs = 0, found = 0, rawFound = 0

        func storefront(_ arguments: String...) -> Outcome {
            let run = Processes.run([context.storefront, "--catalog", catalogPath, "--store", store] + arguments)
            outputs += 1
            findings.check(!run.crashed, "\(arguments.joined(separator: " ")) crashed: \(run.summary)")
            for (name, text) in [("stdout", run.stdout), ("stderr", run.stderr)] where !arguments.contains("--json") {
                if let scalar = raw(text) {
                    rawFound += 1
                    findings.fail("\(arguments.prefix(2).joined(separator: " ")): \(scalar) reached \(name) raw")
                }
            }
            return run
        }

        findings.check(storefront("products").status == 0, "products failed")
        for id in ids {
            let buy = storefront("buy", id, "--json")
            let bought = try? JSON.parse(Array(buy.stdout.utf8))
            findings.check(buy.status == 0 && bought?["transaction"]?["productID"] == .string(id),
                           "buy \(id): \(buy.summary)")
            findings.check(storefront("buy", id).status == 0, "buy (human) \(id)")
        }
        findings.check(storefront("consume", ids[1]).status == 0, "consume of the SQL-named consumable")
        for command in ["transactions", "entitlements", "log", "restore"] {
            findings.check(storefront(command).status == 0, "\(command) failed")
        }
        // Stored and found exactly: every id comes back as it was written, nothing was dropped.
        // Read from the App Store's whole history: the app's `Transaction.all` leaves out the
        // finished consumable, as Apple's does.
        do {
            let opened = try Store(catalog: try Catalog.load(contentsOf: catalogPath), path: store)
            let productIDs = try await opened.appStore.transactions().map(\.productID)
            found = ids.filter { productIDs.contains($0) }.count
            findings.check(found == ids.count, "ids not found exactly: \(productIDs)")
        } catch {
            findings.fail("the store's history cannot be read: \(error)")
        }
        let checkup = StoreDoctor.examine(path: store)
        findings.check(checkup.isHealthy, "doctor after the SQL-named ids: \(checkup.problems.map(\.message))")

        // The paywall: the layout holds at 80×24 and the title is not taken over.
        var screens = 0
        if let tui = Tmux(command: paywallCommand(context, folder: folder, store: store, catalog: catalogPath),
                          columns: 80, rows: 24, session: "stress", socketPrefix: "storefront-stress") {
            // Everything the paywall writes to the terminal, as raw bytes (from here on).
            let rawOutput = folder + "/terminal-output"
            tui.run("pipe-pane", "-t", "stress", "-o", "cat >> '\(rawOutput)'")
            var check = tui.wait { $0.count >= 24 && $0[23].contains("q quit") }
            findings.check(check.ok, "the hostile paywall did not draw:\n\(check.lines.joined(separator: "\n"))")
            tui.send("C-l")
            for keys in [[], ["j"], ["j"], ["Enter"], ["Escape"], ["l"], ["?"], ["Escape"]] {
                for key in keys { tui.send(key) }
                usleep(200_000)
                check = (tui.screen(), true)
                screens += 1
                let lines = check.lines.prefix(24)
                if let scalar = raw(lines.joined(separator: "\n")) {
                    rawFound += 1
                    findings.fail("\(scalar) on the paywall screen after \(keys)")
                }
                findings.check(lines.allSatisfy { TerminalText.width($0) <= 80 },
                               "a line wider than 80 columns after \(keys):\n\(lines.joined(separator: "\n"))")
                // The footer stays on the last line: the paywall's (`q quit`), or an open sheet's or
                // the help's own keys (`esc cancel`, `esc close`).
                let footer = lines.last ?? ""
                findings.check(lines.count == 24 && (footer.contains("q quit") || footer.contains("esc ")),
                               "the layout broke after \(keys):\n\(lines.joined(separator: "\n"))")
            }
            // ncurses itself writes CSI sequences; never an OSC or DCS string, a C1 control or a bidi override.
            let written = Processes.read(rawOutput)
            screens += written.isEmpty ? 0 : 1
            findings.check(!written.isEmpty, "no terminal output was recorded")
            let smuggled = written.unicodeScalars.first { scalar in
                (0x80...0x9F).contains(scalar.value) || [0x202E, 0x202D, 0x2066, 0x2067, 0x2069, 0x200F, 0x061C].contains(scalar.value)
            }
            findings.check(smuggled == nil && !written.contains("\u{1B}]") && !written.contains("\u{1B}P"),
                           "the paywall wrote a raw control sequence from the catalog: \(smuggled.map { String($0.value, radix: 16) } ?? "OSC/DCS")")
            let title = tui.run("display-message", "-p", "-t", "stress", "#{pane_title}").stdout
            findings.check(!title.contains("pwned"), "the catalog set the terminal title: \(title)")
            tui.send("q")
            let exit = tui.wait { $0.contains { $0.hasPrefix("EXIT=") } }
            findings.check(exit.lines.contains("EXIT=0"), "the hostile paywall did not quit with 0")
            tui.stop()
        } else {
            findings.fail("cannot start tmux")
        }
        let figures = "\(outputs) command outputs, \(screens) paywall screens and its raw terminal output scanned, "
            + "\(rawFound) with raw control characters, \(found)/\(ids.count) quoted and SQL ids stored and found exactly, "
            + "\(long.count)-character names"
        return (findings, figures)
    }
}
