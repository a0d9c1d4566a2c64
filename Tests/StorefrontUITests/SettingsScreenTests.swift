import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// The settings screen's rows as the engine gives them for the demo catalog: defaults,
/// except the values in `values`; `once` marks error settings set with --once.
func settingRows(_ values: [String: String] = [:], once: Set<String> = []) -> [SettingRow] {
    SettingDefinition.all.map { definition in
        let value = values[definition.name] ?? (definition.name == "storefront" ? "USA" : definition.defaultValue)
        return SettingRow(value: SettingValue(name: definition.name, value: value, scope: definition.scope,
                                              isDefault: values[definition.name] == nil, once: once.contains(definition.name)),
                          choices: definition.choices(in: demoCatalog), summary: definition.summary,
                          acceptsOnce: definition.acceptsOnce)
    }
}

/// The settings screen (s): cycling simulated conditions, testers and resets.
@Suite("settings screen")
struct SettingsScreenTests {
    /// The settings screen loaded, with the cursor on the line `line` (see `settingsLines`).
    func settings(_ values: [String: String] = [:], once: Set<String> = [], accounts: [String] = [Store.defaultAccount],
                  selecting line: SettingsLine? = nil) -> State {
        var state = loadedState(on: .settings)
        send(&state, .settings(.loaded(settingRows(values, once: once), accounts: accounts)), expecting: [])
        if let line { state.settings.selection = settingsLines(state).firstIndex(of: line)! }
        return state
    }

    func line(_ name: String) -> SettingsLine {
        .setting(SettingDefinition.all.firstIndex { $0.name == name }!)
    }

    func set(_ name: String, _ value: String, once: Bool = false) -> [Effect] {
        [.run(.setSetting(name: name, value: value, once: once))]
    }

    @Test("s opens the screen and reads the settings and testers")
    func opens() {
        var state = loadedState()
        #expect(update(&state, .key(.character("s"))) == [.loadSettings])
        #expect(state.screen == .settings)
        #expect(render(state).lines.contains { $0.contains("Loading settings…") })
        #expect(update(&state, .key(.right)).isEmpty, "nothing to change before the settings are read")
        send(&state, .settings(.loaded(settingRows(), accounts: [Store.defaultAccount])), expecting: [])
        #expect(!render(state).lines.contains { $0.contains("Loading settings…") })
    }

    @Test("a boolean flips with ← → Enter or space, whichever way")
    func booleans() {
        var state = settings(selecting: line("canMakePayments"))
        #expect(update(&state, .key(.right)) == set("canMakePayments", "false"))
        #expect(state.busy == .working("Setting canMakePayments…"))
        state = settings(selecting: line("canMakePayments"))
        #expect(update(&state, .key(.left)) == set("canMakePayments", "false"))
        state = settings(["askToBuy": "true"], selecting: line("askToBuy"))
        #expect(update(&state, .key(.enter)) == set("askToBuy", "false"))
        state = settings(selecting: line("offline"))
        #expect(update(&state, .key(.character(" "))) == set("offline", "true"))
    }

    @Test("an error setting steps through none and the errors of its kind, wrapping at both ends")
    func errors() {
        var state = settings(selecting: line("purchaseError"))
        #expect(update(&state, .key(.right)) == set("purchaseError", "networkError"))
        state = settings(selecting: line("purchaseError"))
        #expect(update(&state, .key(.left)) == set("purchaseError", "missingOfferParameters"))
        state = settings(["purchaseError": "missingOfferParameters"], selecting: line("purchaseError"))
        #expect(update(&state, .key(.right)) == set("purchaseError", "none"))
        state = settings(selecting: line("verificationError"))
        #expect(update(&state, .key(.right)) == set("verificationError", "invalidSignature"),
                "a verification error, not a purchase error")
        state = settings(["loadProductsError": "networkError"], selecting: line("loadProductsError"))
        #expect(update(&state, .key(.left)) == set("loadProductsError", "none"))
    }

    @Test("latency and storefront step through their values")
    func latencyAndStorefront() {
        var state = settings(selecting: line("latency"))
        #expect(update(&state, .key(.right)) == set("latency", "400"))
        state = settings(selecting: line("latency"))
        #expect(update(&state, .key(.left)) == set("latency", "10000"))
        state = settings(["latency": "3000"], selecting: line("latency"))
        #expect(update(&state, .key(.right)) == set("latency", "10000"))
        // A latency set elsewhere that the list lacks steps to its neighbours.
        state = settings(["latency": "250"], selecting: line("latency"))
        #expect(update(&state, .key(.right)) == set("latency", "400"))
        state = settings(["latency": "250"], selecting: line("latency"))
        #expect(update(&state, .key(.left)) == set("latency", "0"))
        state = settings(["latency": "20000"], selecting: line("latency"))
        #expect(update(&state, .key(.left)) == set("latency", "10000"))
        let codes = demoCatalog.storefronts.map(\.countryCode)
        #expect(codes.first == "USA" && codes.count > 2)
        state = settings(selecting: line("storefront"))
        #expect(update(&state, .key(.right)) == set("storefront", codes[1]))
        state = settings(selecting: line("storefront"))
        #expect(update(&state, .key(.left)) == set("storefront", codes.last!))
    }

    @Test("two quick presses change the setting twice: the second waits for the first and steps on from it")
    func quickPresses() {
        let codes = demoCatalog.storefronts.map(\.countryCode)
        var state = settings(selecting: line("storefront"))
        #expect(update(&state, .key(.right)) == set("storefront", codes[1]))
        #expect(state.settings.rows?[SettingDefinition.all.firstIndex { $0.name == "storefront" }!].value.value == codes[1])
        #expect(update(&state, .key(.right)) == [], "the first change is still being made")
        #expect(state.pendingKeys == [.right])
        #expect(update(&state, .commandFinished(.setSetting(name: "storefront", value: codes[1], once: false),
                                                .success("storefront = \(codes[1])"))) == [.load, .loadSettings] + set("storefront", codes[2]))
        #expect(state.pendingKeys.isEmpty)
        #expect(update(&state, .commandFinished(.setSetting(name: "storefront", value: codes[2], once: false),
                                                .success("storefront = \(codes[2])"))) == [.load, .loadSettings])
        #expect(state.busy == nil)
    }

    @Test("keys typed while a write is in flight wait and apply in order: a move, then a change on the new row")
    func keysWaitInOrder() {
        let codes = demoCatalog.storefronts.map(\.countryCode)
        var state = settings(selecting: line("storefront"))
        send(&state, .key(.right), expecting: [.run(.setSetting(name: "storefront", value: "GBR", once: false))])
        for key in [Key.right, .down, .right] { #expect(update(&state, .key(key)).isEmpty, "\(key) waits") }
        #expect(state.settings.selection == settingsLines(state).firstIndex(of: line("storefront")), "↓ has not moved yet")
        let first = update(&state, .commandFinished(.setSetting(name: "storefront", value: codes[1], once: false), .success("")))
        #expect(first.contains(.run(.setSetting(name: "storefront", value: codes[2], once: false))))
        #expect(state.pendingKeys == [.down, .right], "the rest waits for the second write")
        let second = update(&state, .commandFinished(.setSetting(name: "storefront", value: codes[2], once: false), .success("")))
        #expect(second == [.load, .loadSettings] + set("environment", "Sandbox"), "↓ moved to environment, → changed it")
        #expect(state.pendingKeys.isEmpty)
    }

    @Test("o pressed while → is still being written makes the new error apply once")
    func onceAfterChange() {
        var state = settings(selecting: line("purchaseError"))
        #expect(update(&state, .key(.right)) == set("purchaseError", "networkError"))
        #expect(update(&state, .key(.character("o"))).isEmpty)
        let effects = update(&state, .commandFinished(.setSetting(name: "purchaseError", value: "networkError", once: false),
                                                      .success("purchaseError = networkError")))
        #expect(effects == [.load, .loadSettings] + set("purchaseError", "networkError", once: true))
    }

    @Test("settings read before a write still in flight do not undo the value it shows")
    func staleSettingsKept() {
        let codes = demoCatalog.storefronts.map(\.countryCode)
        let storefront = SettingDefinition.all.firstIndex { $0.name == "storefront" }!
        var state = settings(selecting: line("storefront"))
        send(&state, .key(.right), expecting: [.run(.setSetting(name: "storefront", value: "GBR", once: false))])
        send(&state, .commandFinished(.setSetting(name: "storefront", value: codes[1], once: false), .success("")), expecting: [.load, .loadSettings])
        #expect(update(&state, .key(.right)) == set("storefront", codes[2]))
        // The reload after the first write, read before the second one landed.
        send(&state, .settings(.loaded(settingRows(["storefront": codes[1]]), accounts: [Store.defaultAccount])), expecting: [])
        #expect(state.settings.rows?[storefront].value.value == codes[2])
        send(&state, .commandFinished(.setSetting(name: "storefront", value: codes[2], once: false), .success("")), expecting: [.load, .loadSettings])
        send(&state, .settings(.loaded(settingRows(["storefront": codes[2]]), accounts: [Store.defaultAccount])), expecting: [])
        #expect(update(&state, .key(.right)) == set("storefront", codes[3]), "steps on from the value written last")
    }

    @Test("keys typed after a write that fails are dropped with its alert")
    func failedWriteDropsKeys() {
        var state = settings(selecting: line("latency"))
        send(&state, .key(.right), expecting: [.run(.setSetting(name: "latency", value: "400", once: false))])
        send(&state, .key(.right), expecting: [])
        let effects = update(&state, .commandFinished(.setSetting(name: "latency", value: "400", once: false),
                                                      .failure(CommandFailure("disk I/O error"))))
        #expect(effects == [.load, .loadSettings])
        #expect(state.pendingKeys.isEmpty && state.busy == nil)
        #expect(state.sheet == .alert(title: "Cannot set latency", message: "disk I/O error"))
    }

    @Test("every description is readable whole at 80 and 100 columns: wrapped under the list for the selected line",
          arguments: [(80, 24), (100, 30)])
    func descriptionsReadable(columns: Int, rows: Int) {
        var state = settings(accounts: [Store.defaultAccount, "b@local"])
        state.size = Size(columns: columns, rows: rows)
        for (index, line) in settingsLines(state).enumerated() {
            state.settings.selection = index
            let screen = render(state).lines
            let text = screen.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            let summary = settingsDescription(line, state).summary
            #expect(text.contains(summary), "\(line) at \(columns)×\(rows):\n\(screen.joined(separator: "\n"))")
            #expect(screen.contains { $0.contains("▸") }, "the selected line stays on screen")
            #expect(!screen.contains { TerminalText.width($0) > columns })
        }
    }

    @Test("o toggles once, only on an error setting that names an error")
    func once() {
        var state = settings(["purchaseError": "networkError"], selecting: line("purchaseError"))
        #expect(update(&state, .key(.character("o"))) == set("purchaseError", "networkError", once: true))
        state = settings(["purchaseError": "networkError"], once: ["purchaseError"], selecting: line("purchaseError"))
        #expect(update(&state, .key(.character("o"))) == set("purchaseError", "networkError", once: false))
        for (values, name) in [([String: String](), "purchaseError"), ([:], "canMakePayments"), (["latency": "400"], "latency"),
                               ([:], "storefront")] {
            state = settings(values, selecting: line(name))
            #expect(update(&state, .key(.character("o"))).isEmpty, "o on \(name)")
            #expect(state.busy == nil)
            #expect(state.flash == "o (once) applies to an error setting that names an error")
        }
        state = settings(selecting: .newTester)
        #expect(update(&state, .key(.character("o"))).isEmpty)
    }

    @Test("← → on the tester line switch between the store file's testers")
    func accounts() {
        let testers = [Store.defaultAccount, "b@local", "c@local"]
        var state = settings(accounts: testers, selecting: .account)
        #expect(update(&state, .key(.right)) == [.run(.switchAccount("b@local"))])
        #expect(state.busy == .working("Signing in as b@local…"))
        state = settings(accounts: testers, selecting: .account)
        #expect(update(&state, .key(.left)) == [.run(.switchAccount("c@local"))])
        // A fresh store file lists no tester yet; the one in use is still one.
        for accounts in [[Store.defaultAccount], []] {
            state = settings(accounts: accounts, selecting: .account)
            #expect(update(&state, .key(.right)).isEmpty)
            #expect(state.flash == "Only one tester: choose New tester to add one")
        }
    }

    @Test("New tester adds one and signs in; the screens follow the new account")
    func newTester() {
        var state = settings(selecting: .newTester)
        #expect(update(&state, .key(.left)).isEmpty)
        #expect(update(&state, .key(.enter)) == [.run(.newTester)])
        state.manager.transactions = history
        state.manager.selection = 3
        #expect(update(&state, .accountChanged("tester2@local")) == [.load, .loadSettings])
        #expect(state.account == "tester2@local")
        #expect(state.busy == nil)
        #expect(state.flash == "Signed in as tester2@local")
        #expect(state.manager == ManagerState(), "the old tester's history is not shown for the new one")
        #expect(state.snapshot == nil, "nor the old tester's checkmarks while the new one's load")
        #expect(render(state).lines[0].contains("tester2@local"))
    }

    @Test("settings that cannot be read: an alert on the settings screen, nothing elsewhere")
    func settingsFailed() {
        var state = settings(selecting: .newTester)
        send(&state, .settings(.loadFailed("store file /tmp/x.sqlite: disk I/O error")), expecting: [])
        #expect(state.sheet == .alert(title: "Cannot Load Settings", message: "store file /tmp/x.sqlite: disk I/O error"))
        #expect(state.loadError == nil, "the products loaded fine: not a products error")
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.character("p")), expecting: [])
        send(&state, .settings(.loadFailed("again")), expecting: [])
        #expect(state.sheet == nil)
    }

    @Test("each reset asks first; only a yes runs it")
    func resets() {
        for (scope, words) in [(ResetScope.app, "Delete the app?"), (.account, "Clear this tester's history?"),
                               (.all, "Reset everything?")] {
            var state = settings(selecting: .reset(scope))
            #expect(update(&state, .key(.enter)).isEmpty)
            #expect(state.sheet == .confirmCommand(.reset(scope)))
            #expect(render(state).lines.joined(separator: " ").contains(words))
            #expect(update(&state, .key(.escape)).isEmpty)
            #expect(state.sheet == nil)
            #expect(state.screen == .settings)
            send(&state, .key(.right), expecting: [])
            #expect(update(&state, .click(.cancel)).isEmpty)
            #expect(state.sheet == nil)
            send(&state, .key(.right), expecting: [])
            #expect(update(&state, .key(.enter)) == [.run(.reset(scope))])
            #expect(state.busy == .working("Resetting…"))
            let effects = update(&state, .commandFinished(.reset(scope), .success("done")))
            #expect(effects == [.load, .loadSettings])
            #expect(state.flash == "done")
        }
        // ← does not start a reset.
        var state = settings(selecting: .reset(.all))
        #expect(update(&state, .key(.left)).isEmpty)
        #expect(state.sheet == nil)
    }

    @Test("the cursor moves over every line and stops at the ends; clicks select a line")
    func movement() {
        var state = settings()
        let count = settingsLines(state).count
        #expect(count == SettingDefinition.all.count + 5)
        send(&state, .key(.up), expecting: [])
        #expect(state.settings.selection == 0)
        send(&state, .key(.end), expecting: [])
        #expect(state.settings.selection == count - 1)
        send(&state, .key(.down), expecting: [])
        #expect(state.settings.selection == count - 1)
        send(&state, .key(.character("k")), expecting: [])
        #expect(state.settings.selection == count - 2)
        let canvas = render(state)
        let row = canvas.lines.firstIndex { $0.contains("latency") }!
        #expect(canvas.target(atX: 40, y: row) == .row(5))
        send(&state, .click(.row(5)), expecting: [])
        #expect(update(&state, .key(.right)) == set("latency", "400"))
    }

    @Test("a long error name is shown whole, with its (once) and both arrows, before the scope column")
    func longValues() throws {
        let state = settings(["verificationError": "missingRequiredProperties", "purchaseError": "notAvailableInStorefront"],
                             once: ["verificationError"], selecting: line("verificationError"))
        let lines = render(state, timeZone: utc).lines
        let selected = try #require(lines.first { $0.contains("verificationError") })
        #expect(selected.contains("‹ missingRequiredProperties (once) › store"), "\(selected)")
        let other = try #require(lines.first { $0.contains("purchaseError") })
        #expect(other.contains(" notAvailableInStorefront "), "\(other)")
        // The columns stay aligned from row to row.
        #expect(other.distance(of: "store") == selected.distance(of: "store"))
    }

    @Test("the settings screen at 100×30: values, scope, non-defaults, the selected value's arrows")
    func settingsScreen100x30() {
        var state = settings(["askToBuy": "true", "purchaseError": "networkError", "latency": "400"],
                             once: ["purchaseError"], accounts: [Store.defaultAccount, "b@local"],
                             selecting: line("purchaseError"))
        state.flash = "purchaseError = networkError (once)"
        let expected = [
            " Storefront · store.sqlite · tester@local · USA               p Paywall  t Transactions  s Settings",
            "  Settings · simulated conditions, kept in the store file; other processes see them at once",
            String(repeating: "─", count: 100),
            "    canMakePayments              true                    account whether the account may buy (fals…",
            "    askToBuy                     true                    account a child account: purchases wait f…",
            "    interruptedPurchases         false                   store   purchases stop pending, needing a…",
            "    finishTransactions           true                    store   false: the app \"crashes\" before f…",
            "    offline                      false                   store   no network: loading products, pur…",
            "    latency                      400                     store   milliseconds the App Store takes …",
            " ▸  purchaseError                ‹ networkError (once) › store   the error Product.purchase() fail…",
            "    loadProductsError            none                    store   the error Product.products(for:) …",
            "    restoreError                 none                    store   the error AppStore.sync() fails w…",
            "    verificationError            none                    store   purchased transactions reach the …",
            "    timeRate                     realTime                store   how fast the store's one clock ru…",
            "    billingIssues                false                   store   renewals fail to bill: the subscr…",
            "    gracePeriod                  false                   store   a failed renewal keeps access for…",
            "    gracePeriodDuration          16                      store   the grace period's days, as App S…",
            "    gracePeriodRenewalType       ALL_RENEWALS            store   which failed renewals get the gra…",
            "    storefront                   USA                     store   the App Store country (alpha-3 co…",
            "    environment                  Xcode                   store   the environment new transactions …",
            "    includeConsumablesInHistory  false                   store   Transaction.all lists finished co…",
            "    refundRequestOutcome         wait                    store   a refund request from the app: wa…",
            "    appAppleId                   none                    store   the app's Apple ID (appAppleId) i…",
            "    sharedSecret                                         store   the app's shared secret verifyRec…",
            "    Sandbox tester               tester@local                    2 testers in this store file; ‹› …",
            "────────────────────────────────────────────────────────────────────────────────────────────────────",
            "  purchaseError: the error Product.purchase() fails with (none: no error); for the whole store",
            "  file; o makes it apply to the next call only",
            "  purchaseError = networkError (once)",
            " ↑↓ move  ‹› change  o once  + > clock  esc back  ? help  q quit                  /tmp/store.sqlite",
        ]
        let canvas = render(state, timeZone: utc)
        #expect(canvas.lines == expected)
        // Values changed from their defaults stand out; the selected line's name is in reverse video, its value bold.
        #expect(canvas[33, 4].style.color == .yellow)
        #expect(canvas[33, 3].style.color == nil)
        #expect(canvas[10, 9].style.reverse)
        #expect(!canvas[10, 8].style.reverse)
        #expect(canvas[47, 9].style == Style(bold: true, color: .yellow))
        // The screen's tab is the one not in reverse video.
        #expect(!canvas[canvas.lines[0].distance(of: "s Settings"), 0].style.reverse)
    }

    @Test("o on an error setting adds (once) without moving the scope column")
    func onceKeepsColumns() {
        var state = loadedState(on: .settings)
        send(&state, .settings(.loaded(settingRows(["purchaseError": "networkError"]), accounts: [Store.defaultAccount])), expecting: [])
        let scopeX = { (state: State) in render(state, timeZone: utc).lines.first { $0.contains("purchaseError") }!.distance(of: "store") }
        let before = scopeX(state)
        send(&state, .settings(.loaded(settingRows(["purchaseError": "networkError"], once: ["purchaseError"]),
                                            accounts: [Store.defaultAccount])), expecting: [])
        #expect(scopeX(state) == before)
    }
}
