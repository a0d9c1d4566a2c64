import Foundation
import StoreEngine
import StorefrontUI

/// The paywall without a terminal: the UI's pure `update` and `render`, with its
/// effects performed one after another by ``EngineEffects`` until the screen settles.
/// What `Program` does on a terminal, in the order a scenario's steps ask for it.
final class HeadlessPaywall {
    private(set) var state: State
    let effects: EngineEffects
    private let perform: @Sendable (Effect) async -> Action?
    /// Screens are drawn in UTC, so a scenario's dates read the same on every machine.
    let timeZone = TimeZone(identifier: "UTC")!

    init(store: Store, size: Size,
         perform: (EngineEffects) -> @Sendable (Effect) async -> Action? = { engine in engine.perform }) {
        state = State(size: size, account: store.account, storePath: store.path, paywall: store.catalog.paywall)
        effects = EngineEffects(store: store, latency: .zero)
        self.perform = perform(effects)
    }

    /// Starts loading the store, as the paywall does when it opens.
    func start() async {
        await run(StorefrontUI.start(&state))
    }

    /// Applies an action and performs the engine work it starts, and the work that work starts.
    func send(_ action: Action) async {
        await run(update(&state, action))
    }

    /// What the paywall hears from the store's change feed: here at each step, as the scenario's
    /// clock moves (the feed looks now, and makes the renewals due); and the catalog file's check.
    func poll() async {
        await run([.checkForChanges])
        if let change = await effects.store.changes.refresh(), let action = EngineEffects.action(for: change) {
            await send(action)
        }
    }

    /// On a fast clock the paywall reads the screen again every second.
    func tickSecond() async {
        await poll()
        if state.busy == nil, let snapshot = state.snapshot, snapshot.timeRate != .realTime {
            await run([.load])
        }
    }

    private func run(_ initial: [Effect]) async {
        var queue = initial[...]
        // A bound on the chain, so a paywall that keeps asking for work cannot hang a replay.
        var budget = 200
        while let effect = queue.popFirst(), budget > 0 {
            budget -= 1
            if let action = await perform(effect) {
                queue.append(contentsOf: update(&state, action))
            }
        }
    }

    /// The screen as text lines.
    var lines: [String] {
        render(state, timeZone: timeZone).lines
    }

    /// The alert on screen, if any: its title and message.
    var alert: (title: String, message: String)? {
        if case .alert(let title, let message) = state.sheet { return (title, message) }
        return nil
    }
}
