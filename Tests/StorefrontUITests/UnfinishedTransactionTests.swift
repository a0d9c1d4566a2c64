import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// Transactions the app leaves unfinished (`finishTransactions` false, `verificationError`):
/// said so, held for the rest of the run, and delivered at the next launch.
@Suite("EngineEffects: unfinished transactions")
struct UnfinishedTransactionTests {
    let store: Store

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-ui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try Store(catalog: demoCatalog, path: folder.appendingPathComponent("store.sqlite").path)
    }

    /// Runs one effect and applies its action.
    func perform(_ effect: Effect, _ effects: EngineEffects, _ state: inout State) async throws -> [Effect] {
        let action = try #require(await effects.perform(effect))
        return update(&state, action)
    }

    func launch(_ effects: EngineEffects) async throws -> State {
        var state = State(size: Size(columns: 100, rows: 30), account: store.account, storePath: store.path, paywall: demoCatalog.paywall)
        #expect(start(&state) == [.load])
        #expect(try await perform(.load, effects, &state) == [])
        return state
    }

    @Test("an unverified purchase is refused, and no later load of the same run says it arrived")
    func unverifiedIsNotAnUpdate() async throws {
        let effects = EngineEffects(store: store, latency: .zero)
        var state = try await launch(effects)
        _ = try await store.testSession.setSetting("verificationError", to: "invalidSignature", once: true)
        state.sheet = .confirm(productID: coins)
        #expect(update(&state, .key(.enter)) == [.purchase(productID: coins, outcome: nil)])
        #expect(try await perform(.purchase(productID: coins, outcome: nil), effects, &state) == [.load])
        guard case .alert(let title, let message) = state.sheet else { Issue.record("no alert"); return }
        #expect(title == "Unverified Transaction")
        #expect(message.contains("invalidSignature") && message.contains("next launch"))
        #expect(try await perform(.load, effects, &state) == [])
        #expect(state.flash == nil, "nothing arrived: \(state.flash ?? "")")
        #expect(state.snapshot?.balances[coins] ?? 0 == 0)
        #expect(state.snapshot?.left.map(\.productID) == [coins])
        #expect(statusText(state.products[index(of: coins)], state) == "Balance: 0 · Unfinished")
        // The next launch delivers it.
        let relaunched = try await launch(EngineEffects(store: store, latency: .zero))
        #expect(relaunched.snapshot?.balances[coins] == 1)
        #expect(relaunched.flash == "Delivered at launch (left unfinished before): 100 Coins")
    }

    @Test("finishTransactions false: the purchase says it was left unfinished; re-enabling does not deliver it in the same run")
    func finishTransactionsFalse() async throws {
        let effects = EngineEffects(store: store, latency: .zero)
        var state = try await launch(effects)
        _ = try await store.testSession.setSetting("finishTransactions", to: "false")
        #expect(try await perform(.purchase(productID: swiftShopping), effects, &state) == [.load])
        #expect(state.sheet == nil)
        let flash = try #require(state.flash)
        #expect(flash.hasPrefix("Purchased Swift Shopping, left unfinished (transaction "))
        #expect(flash.hasSuffix("nothing delivered; the next launch delivers it."))
        #expect(try await perform(.load, effects, &state) == [])
        #expect(state.snapshot?.owned[swiftShopping] == nil)
        // The engine's standing: the App Store has it, the app does not yet (and no "r restores": the next launch delivers it);
        // bought here, it is not "not on this device" (tester's day, finding 9).
        #expect(statusText(state.products[index(of: swiftShopping)], state) == "Unfinished")
        _ = try await store.testSession.setSetting("finishTransactions", to: "true")
        #expect(try await perform(.load, effects, &state) == [])
        #expect(state.snapshot?.owned[swiftShopping] == nil, "held until the next launch")
        // A launch while finishTransactions is still false shows it as still unfinished.
        _ = try await store.testSession.setSetting("finishTransactions", to: "false")
        let stillLeft = try await launch(EngineEffects(store: store, latency: .zero))
        #expect(stillLeft.flash == "Still unfinished: Swift Shopping")
        _ = try await store.testSession.setSetting("finishTransactions", to: "true")
        let relaunched = try await launch(EngineEffects(store: store, latency: .zero))
        #expect(relaunched.snapshot?.owned[swiftShopping] != nil)
        #expect(relaunched.flash == "Delivered at launch (left unfinished before): Swift Shopping")
    }
}

/// The tester the store file names as current, switched from another terminal.
@Suite("update: the current account")
struct CurrentAccountTests {
    @Test("a load naming another current account switches to it; an explicit --account stays")
    func followsSwitchElsewhere() {
        var state = loadedState()
        var switched = snapshot(dataVersion: 2)
        switched.currentAccount = "new@local"
        #expect(update(&state, .loaded(switched)) == [.run(.switchAccount("new@local"))])
        #expect(state.busy == .working("Switching to new@local…"))
        #expect(update(&state, .accountChanged("new@local")) == [.load])
        #expect(state.account == "new@local")
        #expect(state.snapshot == nil, "the old tester's rows are not shown under the new name")
        #expect(update(&state, .loaded(switched)) == [], "now on the current account")

        var pinned = loadedState()
        pinned.followsCurrentAccount = false
        #expect(update(&pinned, .loaded(switched)) == [])
        #expect(pinned.account == Store.defaultAccount)
    }

    @Test("the snapshot names the account switched to by another connection")
    func snapshotNamesCurrentAccount() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-ui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try Store(catalog: demoCatalog, path: folder.appendingPathComponent("store.sqlite").path)
        let effects = EngineEffects(store: store, latency: .zero)
        #expect(try await effects.snapshot().currentAccount == nil)
        let other = try Store(catalog: demoCatalog, path: store.path)
        _ = try await other.testSession.switchAccount(to: "new@local")
        #expect(try await effects.snapshot().currentAccount == "new@local")
    }
}

/// Alerts whose words are wider than the sheet.
@Suite("render: alert text")
struct AlertTextTests {
    @Test("a long error name is broken after a dot, never cut mid-word")
    func longNameWraps() {
        var state = loadedState(columns: 80, rows: 24)
        state.sheet = .alert(title: "Purchase Failed",
                             message: "VerificationResult.VerificationError.invalidSignature: the transaction reached the app unverified")
        let lines = render(state, timeZone: utc).lines
        #expect(lines.contains { $0.contains("│ VerificationResult.VerificationError.") })
        #expect(lines.contains { $0.contains("│ invalidSignature: the transaction reached the app") })
        #expect(wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"])
    }
}
