import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

// Helpers for the sheets' tests: a paywall on a real store, and the runtime's loop in small.

/// The paywall loaded from a real store, with the engine that performs its effects.
func enginePaywall(_ store: Store, columns: Int = 100, rows: Int = 30, glyphs: Glyphs = .unicode,
                   policy: MessagePolicy = .showNow) async throws -> (State, EngineEffects) {
    let engine = EngineEffects(store: store, latency: .zero)
    var state = State(size: Size(columns: columns, rows: rows), glyphs: glyphs, account: store.account,
                      storePath: "/tmp/store.sqlite", paywall: store.catalog.paywall)
    state.messages.policy = policy
    await settle(&state, start(&state), on: engine)
    return (state, engine)
}

/// Performs effects on the engine and applies the actions they report, and the effects those
/// start, until none is left: what `Program` does between two screens.
func settle(_ state: inout State, _ effects: [Effect], on engine: EngineEffects) async {
    var queue = effects[...]
    var budget = 100
    while let effect = queue.popFirst(), budget > 0 {
        budget -= 1
        if let action = await engine.perform(effect) { queue.append(contentsOf: update(&state, action)) }
    }
}

/// The open sheet's inner lines, trimmed (between its side borders, Unicode or ASCII).
func sheetLines(_ state: State, timeZone: TimeZone = utc) -> [String] {
    let border = state.glyphs.vertical
    return render(state, timeZone: timeZone).lines.compactMap { line -> String? in
        let parts = line.components(separatedBy: border)
        return parts.count == 3 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
    }
}

/// The sheet's text as one string, for phrases that may wrap.
func sheetText(_ state: State) -> String {
    sheetLines(state).joined(separator: " ")
}

/// The sheet's title, from its top border.
func sheetTitle(_ state: State) -> String? {
    let (left, right) = (state.glyphs.corners.topLeft, state.glyphs.corners.topRight)
    guard let top = render(state, timeZone: utc).lines.first(where: { $0.contains(left) && $0.contains(right) }),
          let start = top.range(of: left), let end = top.range(of: right, range: start.upperBound..<top.endIndex) else { return nil }
    return top[start.upperBound..<end.lowerBound].replacingOccurrences(of: state.glyphs.horizontal, with: "")
        .trimmingCharacters(in: .whitespaces)
}
