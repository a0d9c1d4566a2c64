import Testing
@testable import StorefrontUI

// TCA's exhaustive `TestStore.send` for `update`: a test names every field an action changes and
// every effect it returns; a change it did not name fails it, field by field.

/// Applies `action` to `state` and expects exactly `effects`, and exactly the state before with
/// `changes` applied (TCA's `store.send(action) { $0.field = … }`). On a mismatch, the fields that differ.
func assertUpdate(_ state: inout State, _ action: Action, effects: [Effect] = [],
                  sourceLocation: SourceLocation = #_sourceLocation, _ changes: (inout State) -> Void = { _ in }) {
    var expected = state
    changes(&expected)
    let returned = update(&state, action)
    #expect(returned == effects, "effects of \(action)", sourceLocation: sourceLocation)
    if state != expected {
        Issue.record(Comment(rawValue: "state after \(action) differs:\n" + stateDiff(expected: expected, actual: state)),
                     sourceLocation: sourceLocation)
    }
}

/// Applies `action` to `state` and expects exactly `effects`, for a step whose state the test checks
/// afterwards or that sets up the next (TCA's `store.send` without the state closure): never `_ = update`.
func send(_ state: inout State, _ action: Action, expecting effects: [Effect],
          sourceLocation: SourceLocation = #_sourceLocation) {
    let returned = update(&state, action)
    #expect(returned == effects, "effects of \(action)", sourceLocation: sourceLocation)
}

/// Applies `action` and expects exactly `expectedEffects` and exactly `expectedState`.
func assertUpdate(_ state: inout State, _ action: Action, expectedState: State, expectedEffects: [Effect],
                  sourceLocation: SourceLocation = #_sourceLocation) {
    assertUpdate(&state, action, effects: expectedEffects, sourceLocation: sourceLocation) { $0 = expectedState }
}

/// The top-level fields of two states that differ, each as "− expected / + actual" (long values cut).
func stateDiff(expected: State, actual: State) -> String {
    let left = Mirror(reflecting: expected).children
    let right = Array(Mirror(reflecting: actual).children)
    var lines: [String] = []
    for (offset, field) in left.enumerated() {
        let (a, b) = (describe(field.value), describe(right[offset].value))
        guard a != b else { continue }
        lines.append("  \(field.label ?? "?"):\n    − \(a)\n    + \(b)")
    }
    return lines.isEmpty ? "  (a difference String(describing:) does not show)" : lines.joined(separator: "\n")
}

private func describe(_ value: Any) -> String {
    let text = String(describing: value)
    return text.count > 400 ? String(text.prefix(400)) + "…" : text
}
