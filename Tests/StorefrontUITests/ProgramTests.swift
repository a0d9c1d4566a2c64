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
                          terminal: terminal, perform: effects.perform)
        program.start()
    }

    @Test("Enter, Enter buys through the engine, and the checkmark is drawn")
    func buyShowsCheckmark() async throws {
        #expect(await program.run(until: { $0.snapshot != nil }, timeout: .seconds(30)))
        program.dispatch(.click(.product(index(of: swiftShopping))))
        terminal.input = [.key(.enter), .key(.enter)]
        #expect(await program.run(until: { $0.snapshot?.owned[swiftShopping] != nil && $0.busy == nil },
                                  timeout: .seconds(30)))
        let row = try #require(terminal.drawn.last?.lines.first { $0.contains("Swift Shopping") })
        #expect(row.contains("✓"))
        #expect(row.contains("Owned"))
        #expect(try await store.transactions().map(\.productID) == [swiftShopping])
    }

    @Test("a click on Restore Purchases restores through the engine")
    func clickRestore() async throws {
        _ = try await store.purchaseAndFinish(iPhoneRage)
        try await store.reset(.app)
        #expect(await program.run(until: { $0.snapshot != nil }, timeout: .seconds(30)))
        let canvas = try #require(terminal.drawn.last)
        let restoreRow = try #require(canvas.lines.firstIndex { $0.contains("[ Restore Purchases ]") })
        let x = canvas.lines[restoreRow].distance(of: "[ Restore")
        terminal.input = [.click(x: x + 2, y: restoreRow)]
        #expect(await program.run(until: { $0.flash == "Restored 1 purchase" && $0.snapshot?.owned[iPhoneRage] != nil },
                                  timeout: .seconds(30)))
    }

    @Test("a purchase by another connection to the store file appears without a key press")
    func externalPurchase() async throws {
        #expect(await program.run(until: { $0.snapshot != nil }, timeout: .seconds(30)))
        let other = try Store(catalog: demoCatalog, path: store.path)
        _ = try await other.purchaseAndFinish(iPhoneRage)
        // Ticks drive the data-version check, as the real loop's timer does.
        let deadline = ContinuousClock.now + .seconds(30)
        while program.currentState.snapshot?.owned[iPhoneRage] == nil, ContinuousClock.now < deadline {
            program.dispatch(.tick)
            program.step(timeoutMilliseconds: 0)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(program.currentState.snapshot?.owned[iPhoneRage] != nil)
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
