import Foundation
import StoreEngine
import Testing

/// Parity over the state space, not a list (issue 40): seeded random walks of what a tester does
/// (``WalkMove``), every front end compared after every move by ``ParityCheck``, the comparison
/// the hand-picked ``ParityTests`` make.
///
/// `STOREFRONT_PARITY_WALKS` (default 200: a state's comparison costs some 35 ms of CPU in a debug
/// build, so `make test`'s 1,000 states take about 35 s alone on this machine's two cores),
/// `STOREFRONT_PARITY_STEPS` (default 5) and `STOREFRONT_PARITY_SEED` (the first walk's seed; walk `n`
/// has seed + n) set the run, and `STOREFRONT_PARITY_SCENARIOS=each` runs the scenario's `expect`
/// lines after every move, not only after a walk's last (some four times slower): `make parity`
/// walks 2,000 of 12 moves. A failing walk is reduced to the moves that still disagree, and printed
/// with the seed that replays it (`STOREFRONT_PARITY_SEED=S STOREFRONT_PARITY_WALKS=1`).
@Suite("Parity walk")
struct ParityWalkTests {
    static let environment = ProcessInfo.processInfo.environment
    static let walks = environment["STOREFRONT_PARITY_WALKS"].flatMap(Int.init) ?? 200
    static let steps = environment["STOREFRONT_PARITY_STEPS"].flatMap(Int.init) ?? 5
    static let seed = environment["STOREFRONT_PARITY_SEED"].flatMap { UInt64($0) } ?? 40_2026
    /// Whether a scenario's `expect` lines run after every move, not only after a walk's last.
    static let scenarioEachMove = environment["STOREFRONT_PARITY_SCENARIOS"] == "each"

    /// Disagreements the front ends must keep, each with why (docs/storekit-rules.md says so too):
    /// a disagreement containing the text is counted, not failed.
    static let allowed: [(text: String, why: String)] = []

    /// What one walk did.
    struct Walk: Sendable {
        var seed: UInt64
        var moves: [WalkMove] = []
        var refused = 0
        var states = 0
        var comparisons = 0
        var allowed = 0
        /// The first disagreements, after `moves` (the last move made them).
        var disagreements: [String] = []
    }

    @Test func everyFrontEndSaysTheSameAlongRandomWalks() async throws {
        let started = ContinuousClock.now
        // Four walks a core: a walk waits on its store file's writes as much as it computes.
        let width = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var done: [Walk] = []
        try await withThrowingTaskGroup(of: Walk.self) { group in
            var next = 0
            for _ in 0..<min(width, Self.walks) {
                let seed = Self.seed &+ UInt64(next)
                group.addTask { try await Self.walk(seed: seed, steps: Self.steps) }
                next += 1
            }
            while let walk = try await group.next() {
                done.append(walk)
                if next < Self.walks {
                    let seed = Self.seed &+ UInt64(next)
                    group.addTask { try await Self.walk(seed: seed, steps: Self.steps) }
                    next += 1
                }
            }
        }
        let failed = done.filter { !$0.disagreements.isEmpty }.sorted { $0.seed < $1.seed }
        for walk in failed {
            let reduced = try await Self.reduce(walk)
            Issue.record("""
                Walk \(walk.seed) disagrees after \(walk.moves.count) moves: \(walk.disagreements.joined(separator: "; "))
                Reduced to \(reduced.moves.count) moves: \(reduced.moves.map(\.description).joined(separator: " | "))
                there: \(reduced.disagreements.joined(separator: "; "))
                Replay: STOREFRONT_PARITY_SEED=\(walk.seed) STOREFRONT_PARITY_WALKS=1 swift test --skip-build --filter ParityWalkTests
                """)
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        print("Parity walk: seed \(Self.seed), \(done.count) walks of up to \(Self.steps) moves, "
              + "\(done.map(\.moves.count).reduce(0, +)) moves (\(done.map(\.refused).reduce(0, +)) refused by the engine), "
              + "\(done.map(\.states).reduce(0, +)) states compared, \(done.map(\.comparisons).reduce(0, +)) facts compared, "
              + "\(done.map(\.allowed).reduce(0, +)) allowed disagreements, \(failed.count) walks disagreeing, "
              + String(format: "%.1f s", seconds))
        #expect(done.count == Self.walks)
    }

    /// The clock every walk's front ends read at; the store's own clock moves with `clock advance`.
    static let start = try! Date("2026-01-05T09:00:00Z", strategy: .iso8601)

    /// One walk: `steps` moves drawn from `seed`, every front end compared after each, stopping at
    /// the first disagreement.
    static func walk(seed: UInt64, steps: Int) async throws -> Walk {
        var random = SplitMix64(state: seed)
        let moves = (0..<steps).map { _ in WalkMove.draw(&random) }
        return try await replay(moves, seed: seed, compareEach: true)
    }

    /// Makes `moves` on a new store, comparing after each (or after the last only); stops at the first disagreement.
    static func replay(_ moves: [WalkMove], seed: UInt64, compareEach: Bool) async throws -> Walk {
        let folder = try TemporaryFolder(prefix: "storefront-parity-walk")
        let path = folder.path("store.sqlite")
        let clock: @Sendable () -> Date = { start }
        var walk = Walk(seed: seed)
        var store = WalkStore(store: try Store(catalog: ParityTests.catalog, path: path, now: clock), path: path,
                              catalog: ParityTests.catalog, clock: clock)
        for (index, move) in moves.enumerated() {
            walk.moves.append(move)
            if await store.make(move) != nil { walk.refused += 1 }
            guard compareEach || index == moves.count - 1 else { continue }
            let check = ParityCheck()
            try await check.compare(store.store, path: path, catalog: ParityTests.catalog, clock: clock,
                                    scenarioPath: scenarioEachMove || index == moves.count - 1 ? folder.path("parity.scenario") : nil)
            walk.states += 1
            walk.comparisons += check.comparisons
            let disagreements = check.disagreements.filter { found in !allowed.contains { found.contains($0.text) } }
            walk.allowed += check.disagreements.count - disagreements.count
            if !disagreements.isEmpty {
                walk.disagreements = disagreements
                break
            }
        }
        return walk
    }

    /// The failing walk with every move left out that it still disagrees without: the minimal reproduction.
    static func reduce(_ walk: Walk) async throws -> Walk {
        var moves = walk.moves
        var result = walk
        var index = moves.count - 2
        while index >= 0 {
            var fewer = moves
            fewer.remove(at: index)
            let tried = try await replay(fewer, seed: walk.seed, compareEach: false)
            if !tried.disagreements.isEmpty {
                moves = fewer
                result = tried
            }
            index -= 1
        }
        return result
    }
}
