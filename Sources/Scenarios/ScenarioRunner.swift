import Foundation
import StoreEngine
import StorefrontUI
import Synchronization

/// How one step went: passed, or failed with what was expected and what was there.
public struct StepResult: Sendable {
    public enum Status: String, Sendable { case passed, failed, skipped }

    public var line: Int
    public var source: String
    public var status: Status
    public var expected: String?
    public var found: String?
    /// For a screen expectation that failed: the lines around where the text should be.
    public var screen: [String] = []
    public var seconds: Double = 0
}

/// How one scenario went.
public struct ScenarioResult: Sendable {
    public var path: String
    public var name: String
    public var steps: [StepResult] = []
    public var seconds: Double = 0
    /// The store file, left for inspection (`--keep`, when the scenario failed).
    public var keptStore: String?
    /// Why the scenario could not start (a store file that cannot be made).
    public var setupError: String?

    public var passed: Bool { setupError == nil && steps.allSatisfy { $0.status == .passed } }
    public var firstFailure: StepResult? { steps.first { $0.status == .failed } }
}

/// The paywall's effects for a replay: ``EngineEffects``, unless a test wraps them to break a rule on purpose.
public typealias ScenarioEffects = @Sendable (EngineEffects) -> @Sendable (Effect) async -> Action?

/// Real time as a scenario sees it: fixed at its start, moved only by `wait`.
final class ScenarioClock: Sendable {
    private let date: Mutex<Date>
    init(_ start: Date) { date = Mutex(start) }
    func now() -> Date { date.withLock { $0 } }
    func advance(_ seconds: Double) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Lines a command prints, kept for `expect output`.
public final class LineCollector: Sendable {
    private let lines = Mutex<[String]>([])
    public init() {}
    @Sendable public func append(_ line: String) { lines.withLock { $0.append(line) } }
    public var all: [String] { lines.withLock { $0 } }
}

/// Runs one scenario on a fresh store file in a temporary folder.
public final class ScenarioRun {
    let scenario: Scenario
    let catalog: Catalog
    let clock: ScenarioClock
    let folder: String
    let storePath: String
    /// Whether the run made `folder` (and removes it after).
    let ownsFolder: Bool
    /// The transaction `LAST` names, and the ones captured with `as NAME`.
    var last: Int64?
    var captures: [String: Int64] = [:]
    /// What the last acting step left: its error (name and message) and its output.
    var lastError: (name: String, message: String)?
    var lastOutput: [String] = []
    var lastSeconds: Double = 0
    /// The newest server notification an `expect notification` matched: the next one looks after it.
    var notificationsSeen: Int64?
    var paywall: HeadlessPaywall?
    /// The command line the store commands run on (the CLI's), and the paywall's effects.
    let commands: any ScenarioCommandLine
    let effects: ScenarioEffects

    /// `storePath`: a store file to run on (set up elsewhere, and left as it is after the run);
    /// nil, a fresh one in a temporary folder.
    public init(scenario: Scenario, catalog: Catalog, commands: any ScenarioCommandLine, storePath: String? = nil,
                effects: @escaping ScenarioEffects = { engine in engine.perform }) throws {
        self.scenario = scenario
        self.commands = commands
        self.effects = effects
        self.catalog = catalog
        clock = ScenarioClock(scenario.start)
        if let storePath {
            (folder, self.storePath, ownsFolder) = (storePath.pathFolder, storePath, false)
            return
        }
        ownsFolder = true
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-replay-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw CocoaError(.fileWriteUnknown) }
        folder = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.storePath = folder + "/store.sqlite"
    }

    /// Runs every step; after an action fails unexpectedly, the rest are skipped.
    public func run(keep: Bool) async -> ScenarioResult {
        var result = ScenarioResult(path: scenario.path, name: scenario.name)
        let started = ContinuousClock.now
        var stopped = false
        for (index, step) in scenario.steps.enumerated() {
            if stopped {
                result.steps.append(StepResult(line: step.line, source: step.source, status: .skipped))
                continue
            }
            let next = scenario.steps.indices.contains(index + 1) ? scenario.steps[index + 1] : nil
            let stepStart = ContinuousClock.now
            var outcome = await perform(step, next: next)
            outcome.seconds = (ContinuousClock.now - stepStart).seconds
            if !step.isExpectation { lastSeconds = outcome.seconds }
            result.steps.append(outcome)
            if outcome.status == .failed, !step.isExpectation { stopped = true }
        }
        result.seconds = (ContinuousClock.now - started).seconds
        paywall = nil
        if keep, !result.passed {
            result.keptStore = storePath
        } else if ownsFolder {
            try? FileManager.default.removeItem(atPath: folder)
        }
        return result
    }

    private func perform(_ step: ScenarioStep, next: ScenarioStep?) async -> StepResult {
        var result = StepResult(line: step.line, source: step.source, status: .passed)
        func fail(_ expected: String, _ found: String) {
            result.status = .failed
            (result.expected, result.found) = (expected, found)
        }
        let expectsError = if case .expect(.error(let name)) = next?.kind, name != "none" { true } else { false }
        do {
            switch step.kind {
            case .command(let words, let capture):
                try await command(words)
                if let capture { captures[capture] = last }
                if let error = lastError, !expectsError { fail("the command to succeed", error.message) }
            case .press(let keys):
                let before = try await newestTransaction()
                let screen = try await openPaywall()
                lastError = nil
                for key in keys { await screen.send(.key(key)) }
                if let alert = screen.alert, alert.title.contains("Fail") || alert.title.hasPrefix("Cannot") || alert.title.contains("Cancelled") {
                    lastError = (alert.message, alert.title + ": " + alert.message)
                }
                if !screen.state.isRunning { paywall = nil }
                if let newest = try await newestTransaction(), newest != before { last = newest }
            case .select(let productID):
                let screen = try await openPaywall()
                guard let index = screen.state.products.firstIndex(where: { $0.id == productID }) else {
                    fail("a product \(productID) on the paywall", "products: " + screen.state.products.map(\.id).joined(separator: ", "))
                    return result
                }
                guard screen.state.screen == .paywall, screen.state.sheet == nil else {
                    fail("the paywall's table, with no sheet open", "the \(screen.state.screen) screen\(screen.state.sheet == nil ? "" : " with a sheet open")")
                    return result
                }
                await screen.send(.click(.product(index)))
            case .launch:
                paywall = nil
                _ = try await openPaywall()
            case .wait(let duration):
                let before = try await newestTransaction()
                let reference = Date(timeIntervalSince1970: 0)
                let total = duration.after(reference).timeIntervalSince(reference)
                let chunks = max(1, min(120, Int(total)))
                for _ in 0..<chunks {
                    clock.advance(total / Double(chunks))
                    await paywall?.tickSecond()
                }
                lastError = nil
                if let newest = try await newestTransaction(), newest != before { last = newest }
            case .expect(let expectation):
                try await check(expectation, into: &result)
            }
        } catch {
            fail("the step to run", describe(error))
        }
        return result
    }

    // MARK: - Store commands

    /// Runs a store command as the CLI does (its parser and commands, through ``commands``),
    /// on a store opened for this command alone, like another `storefront` process.
    private func command(_ words: [ScenarioWord]) async throws {
        var arguments: [String] = []
        for word in words {
            if Scenario.isReference(word) {
                arguments.append(String(try reference(word)))
            } else {
                arguments.append(word.text)
            }
        }
        lastError = nil
        let ran = try await commands.run(arguments, catalog: catalog, storePath: storePath, now: clock.now)
        let store = ran.store
        let reported = ran.json
        lastError = ran.error.map { ($0.name, $0.message) }
        lastOutput = ran.lines
        if let id = reported?["transaction"]?["id"] ?? reported?["request"]?["id"], case .number(let text) = id, let number = Int64(text) {
            last = number
        } else if let newest = try await store.appStore.transactions(limit: 1).first?.id, newest != last,
                  reported?["transaction"] == nil {
            last = newest
        }
        // The paywall, if open, notices another process's write within a second.
        await paywall?.poll()
    }

    /// The transaction id `LAST` or `$name` stands for.
    private func reference(_ word: ScenarioWord) throws -> Int64 {
        if word.text == "LAST" {
            guard let last else { throw ScenarioFailure("LAST names no transaction yet: no step has made or reported one") }
            return last
        }
        let name = String(word.text.dropFirst())
        guard let id = captures[name] else { throw ScenarioFailure("\(word.text) was never captured: its step made no transaction") }
        return id
    }

    private func newestTransaction() async throws -> Int64? {
        try await observer().appStore.transactions(limit: 1).first?.id
    }

    /// A store opened as a reader of the account in use.
    func observer() throws -> Store {
        try Store(catalog: catalog, path: storePath, now: clock.now)
    }

    /// The paywall, started as `storefront` starts it when it is not open.
    func openPaywall() async throws -> HeadlessPaywall {
        if let paywall { return paywall }
        let store = try observer()
        lastOutput = try await commands.launch(store)
        let screen = HeadlessPaywall(store: store, size: scenario.size, perform: effects)
        await screen.start()
        paywall = screen
        return screen
    }

    func describe(_ error: any Error) -> String {
        switch error {
        case let error as any NamedFailure: error.description
        case let error as ScenarioFailure: error.message
        case let error as StoreFileError: error.description
        default: "\(error)"
        }
    }
}

/// A step that cannot run (a reference to nothing).
struct ScenarioFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
