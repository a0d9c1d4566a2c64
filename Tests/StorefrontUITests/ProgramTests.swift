import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// A test double of the terminal: records what is drawn, replays scripted input.
final class RecordingTerminal: Terminal {
    var size = Size(columns: 100, rows: 30)
    var supportsUnicode = true
    var drawn: [Canvas] = []
    var input: [TerminalEvent] = []

    func draw(_ canvas: Canvas) { drawn.append(canvas) }

    func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent? {
        input.isEmpty ? nil : input.removeFirst()
    }
}

/// How long a condition may take to come true: a ceiling, not an expectation. The engine's
/// work runs on Swift's pool of one thread per core, shared with every other suite's fsyncs,
/// so on a loaded machine a first load has taken over 30 s; a passing test never waits it out.
let patience = Duration.seconds(120)

/// The run loop with the real engine on a temporary store file, input from a test double.
@Suite("Program")
struct ProgramTests {
    let terminal = RecordingTerminal()
    let store: Store
    let program: Program

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-ui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try Store(catalog: demoCatalog, path: folder.appendingPathComponent("store.sqlite").path)
        let effects = EngineEffects(store: store, latency: .zero)
        program = Program(state: State(size: terminal.size, account: store.account, storePath: store.path,
                                       paywall: demoCatalog.paywall),
                          terminal: terminal, executor: OffPoolExecutor.shared, perform: effects.perform)
        // As the executable does: another connection's writes come from the store's change feed.
        program.subscribe(to: effects.storeChanges())
        program.start()
    }

    @Test("Enter, Enter buys through the engine, and the checkmark is drawn")
    func buyShowsCheckmark() async throws {
        #expect(await program.runOffPool(until: { $0.snapshot != nil }, timeout: patience))
        program.dispatch(.click(.product(index(of: swiftShopping))))
        terminal.input = [.key(.enter), .key(.enter)]
        #expect(await program.runOffPool(until: { $0.snapshot?.owned[swiftShopping] != nil && $0.busy == nil },
                                  timeout: patience))
        let row = try #require(terminal.drawn.last?.lines.first { $0.contains("Swift Shopping") })
        #expect(row.contains("✓"))
        #expect(row.contains("Owned"))
        #expect(try await store.app.transactions().map(\.productID) == [swiftShopping])
    }

    @Test("a click on Restore Purchases restores through the engine")
    func clickRestore() async throws {
        _ = try await store.app.buy(iPhoneRage)
        try await store.testSession.reset(.app)
        #expect(await program.runOffPool(until: { $0.snapshot != nil }, timeout: patience))
        let canvas = try #require(terminal.drawn.last)
        let restoreRow = try #require(canvas.lines.firstIndex { $0.contains("[ Restore Purchases ]") })
        let x = canvas.lines[restoreRow].distance(of: "[ Restore")
        terminal.input = [.click(x: x + 2, y: restoreRow)]
        #expect(await program.runOffPool(until: { $0.flash == "Restored 1 purchase." && $0.snapshot?.owned[iPhoneRage] != nil },
                                  timeout: patience))
    }

    @Test("a purchase by another connection to the store file appears without a key press")
    func externalPurchase() async throws {
        #expect(await program.runOffPool(until: { $0.snapshot != nil }, timeout: patience))
        let other = try Store(catalog: demoCatalog, path: store.path)
        _ = try await other.app.buy(iPhoneRage)
        // Ticks drive the data-version check, as the real loop's timer does.
        #expect(try await tick(until: { $0.snapshot?.owned[iPhoneRage] != nil }))
    }

    /// Ticks the loop, as the real loop's timer does, until `condition` holds.
    func tick(until condition: (State) -> Bool, timeout: Duration = patience) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(program.currentState), ContinuousClock.now < deadline {
            program.dispatch(.tick)
            program.step(timeoutMilliseconds: 0)
            try await Task.sleep(for: .milliseconds(5))
        }
        program.step(timeoutMilliseconds: 0)
        return condition(program.currentState)
    }

    @Test("Ask to Buy chosen on the sheet: a pending alert; a parent's approval elsewhere arrives as an update")
    func askToBuyApprovedElsewhere() async throws {
        #expect(await program.runOffPool(until: { $0.snapshot != nil }, timeout: patience))
        program.dispatch(.click(.product(index(of: swiftShopping))))
        // Enter opens the sheet; → three times chooses Ask to Buy; Enter confirms.
        terminal.input = [.key(.enter), .key(.right), .key(.right), .key(.right), .key(.enter)]
        #expect(await program.runOffPool(until: { state in
            if case .alert("Purchase Pending", _) = state.sheet { state.busy == nil } else { false }
        }, timeout: patience))
        let alert = try #require(terminal.drawn.last).lines.joined(separator: "\n")
        #expect(alert.contains("Purchase Pending"))
        #expect(alert.contains("is pending Ask to Buy"))
        let waiting = try await store.appStore.pendingRequests()
        #expect(waiting.map(\.productID) == [swiftShopping])
        #expect(program.currentState.snapshot?.owned[swiftShopping] == nil, "nothing is owned while it waits")
        terminal.input = [.key(.enter)]
        #expect(await program.runOffPool(until: { $0.sheet == nil }))

        // The parent approves in another process: another connection to the same store file.
        let parent = try Store(catalog: demoCatalog, path: store.path)
        try await parent.appStore.approve(try #require(waiting.first).id)
        #expect(try await tick(until: { $0.snapshot?.owned[swiftShopping] != nil }),
                "load error: \(program.currentState.loadError ?? "none"), busy: \(String(describing: program.currentState.busy)), sheet: \(String(describing: program.currentState.sheet)), flash: \(program.currentState.flash ?? "none")")
        let state = program.currentState
        #expect(state.flash == "Arrived as an update: Swift Shopping")
        let canvas = try #require(terminal.drawn.last)
        let row = try #require(canvas.lines.first { $0.contains("Swift Shopping") })
        #expect(row.contains("✓") && row.contains("Owned"))
        #expect(canvas.lines.contains { $0.contains("Arrived as an update: Swift Shopping") })
        // Delivered once: the app finished it, so the next change does not announce it again.
        #expect(try await store.app.unfinished().isEmpty)
        _ = try await parent.app.buy(iPhoneRage)
        #expect(try await tick(until: { $0.snapshot?.owned[iPhoneRage] != nil }))
        #expect(program.currentState.flash == "Arrived as an update: Swift Shopping")
        #expect(program.currentState.snapshot?.arrived == [])
    }

    @Test("the Transaction Manager's approve, on the real engine, ends with the product owned")
    func approveInManager() async throws {
        #expect(await program.runOffPool(until: { $0.snapshot != nil }, timeout: patience))
        _ = try await store.app.purchase(iPhoneRage, choice: .askToBuy)
        terminal.input = [.key(.character("t"))]
        #expect(await program.runOffPool(until: { $0.manager.transactions?.count == 1 }, timeout: patience))
        #expect(try #require(terminal.drawn.last).lines.contains { $0.contains("pending (Ask to Buy)") })
        terminal.input = [.key(.character("a"))]
        #expect(await program.runOffPool(until: { state in
            state.busy == nil && state.snapshot?.owned[iPhoneRage] != nil && state.manager.selected?.status == .purchased
                && state.manager.selected?.isFinished == true
        }, timeout: patience))
        let lines = try #require(terminal.drawn.last).lines
        #expect(lines.contains { $0.contains("iPhone Rage") && $0.contains("purchased") && !$0.contains("unfinished") })
        terminal.input = [.key(.character("p"))]
        #expect(await program.runOffPool(until: { $0.screen == .paywall }))
        #expect(try #require(terminal.drawn.last).lines.contains { $0.contains("✓  iPhone Rage") })
    }

    @Test("o in the manager buys the picked product outside the app; the app gets it as an update")
    func buyOutsideInManager() async throws {
        #expect(await program.runOffPool(until: { $0.snapshot != nil }, timeout: patience))
        let products = program.currentState.products
        let picked = try #require(products.firstIndex { $0.id == iPhoneRage })
        // From the picker's first row (the paywall's selection), down to iPhone Rage.
        terminal.input = [.key(.character("t")), .key(.character("o"))] + Array(repeating: .key(.down), count: picked)
            + [.key(.enter)]
        // The list ends up showing it finished (not "purchased, unfinished" from a read before the delivery).
        #expect(await program.runOffPool(until: { $0.busy == nil && $0.snapshot?.owned[iPhoneRage] != nil
                && $0.manager.transactions?.count == 1 && $0.manager.selected?.isFinished == true }, timeout: patience))
        #expect(program.currentState.flash == "Arrived as an update: iPhone Rage")
        #expect(program.currentState.manager.selected?.productID == iPhoneRage)
        #expect(try await store.app.transactions().map(\.productID) == [iPhoneRage])
        #expect(try await store.app.unfinished().isEmpty, "the app finished what arrived")
    }

    @Test("New tester starts an empty history, sees other processes' writes, and switching back shows the first tester's")
    func testers() async throws {
        _ = try await store.app.buy(swiftShopping)
        #expect(await program.runOffPool(until: { $0.snapshot?.owned[swiftShopping] != nil }, timeout: patience))
        terminal.input = [.key(.character("s"))]
        #expect(await program.runOffPool(until: { $0.settings.rows != nil }, timeout: patience))
        let accountLine = SettingDefinition.all.count
        program.dispatch(.click(.row(accountLine + 1)))  // New tester
        terminal.input = [.key(.enter)]
        #expect(await program.runOffPool(until: { state in
            state.account == "tester2@local" && state.busy == nil && state.snapshot?.owned.isEmpty == true
                && state.settings.accounts.count == 2
        }, timeout: patience))
        #expect(try #require(terminal.drawn.last).lines[0].contains("tester2@local"))

        // The engine now works for the new tester: another process's purchase for it shows up.
        let other = try Store(catalog: demoCatalog, path: store.path, account: "tester2@local")
        _ = try await other.app.buy(iPhoneRage)
        #expect(try await tick(until: { $0.snapshot?.owned[iPhoneRage] != nil }))

        program.dispatch(.click(.row(accountLine)))
        terminal.input = [.key(.left)]
        #expect(await program.runOffPool(until: { state in
            state.account == Store.defaultAccount && state.busy == nil && state.snapshot?.owned[swiftShopping] != nil
        }, timeout: patience))
        #expect(program.currentState.snapshot?.owned[iPhoneRage] == nil, "tester2's purchase is not the first tester's")
    }

    @Test("a stop request (SIGTERM) ends the loop")
    func stopSignal() {
        let stop = StopSignal()
        let quitting = Program(state: State(size: terminal.size, account: "a", storePath: "p", paywall: Paywall()),
                               terminal: terminal, stop: stop, perform: { _ in nil })
        stop.request()
        quitting.run()
        #expect(!quitting.currentState.isRunning)
    }
}

extension Program {
    /// ``run(until:timeout:)`` looked at off Swift's shared pool, as its effects run
    /// (``OffPoolExecutor``): in a full parallel run the pool stays busy with other tests' work.
    func runOffPool(until condition: (State) -> Bool, timeout: Duration = .seconds(5)) async -> Bool {
        await withTaskExecutorPreference(OffPoolExecutor.shared) { await run(until: condition, timeout: timeout) }
    }
}
