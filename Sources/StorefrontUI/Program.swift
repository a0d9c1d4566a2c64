import Foundation
// The terminal core (Canvas cells, keys, the Terminal protocol, TerminalText) is part of what a
// UI user needs: importing StorefrontUI brings it.
@_exported import TerminalCore
import Synchronization

/// The paywall's run loop, in the Elm/bubbletea shape: events become actions,
/// `update` turns them into a new state and effects, effects run on the engine
/// in the background and come back as actions, `render` draws the state.
///
/// All terminal calls happen on the thread that calls `run`.
public final class Program {
    private var state: State
    private let terminal: any Terminal<ClickTarget>
    private let perform: @Sendable (Effect) async -> Action?
    /// Where effects and subscriptions run: Swift's shared pool when nil.
    private let executor: (any TaskExecutor)?
    private let timeZone: TimeZone
    /// Results of effects, handed over from background tasks.
    private let inbox = Inbox()
    /// Set from a signal handler's queue to stop the loop.
    private let stop: StopSignal
    private var lastCanvas: Canvas?
    /// Whether an action may have changed what is on screen since the last render.
    private var needsRender = true
    /// Called on the loop's thread after every action with the state it left (`--record`'s view).
    public var observe: ((Action, State) -> Void)?
    /// Why the loop stopped by itself: the terminal could no longer be read (``Terminal/inputLost``).
    public private(set) var stoppedBecause: String?

    /// - Parameters:
    ///   - executor: where effects and subscriptions run: Swift's shared pool when nil (the executable).
    ///     Tests give one of their own, so that the engine's work does not wait behind every other
    ///     test's on the pool (a full parallel run kept a first load queued for minutes).
    ///   - perform: runs one effect against the engine and returns the action reporting its result.
    public init(state: State, terminal: any Terminal<ClickTarget>, timeZone: TimeZone = .current, stop: StopSignal = StopSignal(),
                executor: (any TaskExecutor)? = nil, perform: @escaping @Sendable (Effect) async -> Action?) {
        self.state = state
        self.executor = executor
        self.stop = stop
        self.terminal = terminal
        self.timeZone = timeZone
        self.perform = perform
    }

    /// Actions that come unasked for while the loop runs: the store's change feed
    /// (``EngineEffects/storeChanges()``). Ended when the loop ends.
    public func subscribe(to actions: AsyncStream<Action>) {
        subscriptions.append(Task(executorPreference: executor) { [inbox] in
            for await action in actions { inbox.arrived(action) }
        })
    }

    private var subscriptions: [Task<Void, Never>] = []

    deinit { for task in subscriptions { task.cancel() } }

    /// The state now, for tests that drive the loop step by step.
    public var currentState: State { state }

    /// Takes the terminal's size and character set and starts loading the store.
    public func start() {
        state.size = terminal.size
        state.glyphs = terminal.supportsUnicode ? .unicode : .ascii
        launch(StorefrontUI.start(&state))
    }

    /// Runs until the user quits or a stop is requested.
    public func run() {
        start()
        var lastTick = ContinuousClock.now
        while state.isRunning {
            // While the engine works, look for its result often: it is shown at the next turn,
            // and a 50 ms wait for a key would delay the first paint by up to that much.
            step(timeoutMilliseconds: inbox.isAwaiting ? 5 : 50)
            let now = ContinuousClock.now
            if now - lastTick >= .milliseconds(100) {
                lastTick = now
                dispatch(.tick)
            }
        }
        for task in subscriptions { task.cancel() }
    }

    /// One turn of the loop: draw, wait for input, then apply input and finished effects.
    public func step(timeoutMilliseconds: Int) {
        redraw()
        if let event = terminal.nextEvent(timeoutMilliseconds: timeoutMilliseconds, wake: inbox.wakeDescriptor) {
            switch event {
            case .key(let key): dispatch(.key(key))
            case .resize(let size): dispatch(.resized(size))
            case .click(let x, let y):
                if let target = lastCanvas?.target(atX: x, y: y) { dispatch(.click(target)) }
            }
        } else if stoppedBecause == nil, let lost = terminal.inputLost {
            stoppedBecause = lost
            dispatch(.terminate)
        }
        for action in inbox.takeAll() {
            dispatch(action)
        }
        if stop.isRequested { dispatch(.terminate) }
    }

    /// Applies an action now (input, or a test's scripted event) and starts its effects.
    public func dispatch(_ action: Action) {
        // A tick changes only the spinner, which shows only while loading or busy:
        // an idle paywall is not re-rendered ten times a second.
        if action != .tick || state.busy != nil || state.snapshot == nil { needsRender = true }
        let flash = state.flash
        launch(update(&state, action))
        // A status note that went with this tick.
        if state.flash != flash { needsRender = true }
        observe?(action, state)
    }

    private func redraw() {
        guard needsRender else { return }
        needsRender = false
        let canvas = render(state, timeZone: timeZone)
        guard canvas != lastCanvas else { return }
        terminal.draw(canvas)
        lastCanvas = canvas
    }

    private func launch(_ effects: [Effect]) {
        for effect in effects {
            inbox.expect()
            Task(executorPreference: executor) { [perform, inbox] in
                inbox.post(await perform(effect))
            }
        }
    }

    /// Pumps the loop until `condition` holds or `timeout` passes; for tests.
    /// Suspends between steps rather than blocking, so effects can run meanwhile.
    @discardableResult
    public func run(until condition: (State) -> Bool, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(state) {
            if ContinuousClock.now > deadline { return false }
            step(timeoutMilliseconds: 0)
            try? await Task.sleep(for: .milliseconds(2))
        }
        redraw()
        return true
    }
}

/// Actions posted by background tasks, taken by the loop's thread.
private final class Inbox: Sendable {
    private struct Contents {
        var actions: [Action] = []
        /// Effects started whose result has not been posted yet.
        var awaited = 0
    }

    private let contents = Mutex(Contents())
    /// A pipe that each posted action pokes, so the loop's wait for a key ends when one comes.
    private let wake: (read: Int32, write: Int32)

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        } else {
            ends = [-1, -1]
        }
        wake = (ends[0], ends[1])
    }

    deinit {
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    /// Readable while an action waits (-1: no pipe could be had; the loop's waits end on their own).
    var wakeDescriptor: Int32 { wake.read }

    private func poke() {
        guard wake.write >= 0 else { return }
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)  // a full pipe already has a poke waiting
    }

    /// An effect has started; its task will post once.
    func expect() {
        contents.withLock { $0.awaited += 1 }
    }

    /// An effect's result: the action it reports, or nil when it reports none.
    func post(_ action: Action?) {
        contents.withLock { contents in
            contents.awaited -= 1
            if let action { contents.actions.append(action) }
        }
        poke()
    }

    /// An action that came unasked for (a subscription's), not the result of an effect.
    func arrived(_ action: Action) {
        contents.withLock { $0.actions.append(action) }
        poke()
    }

    /// Whether an effect is still running.
    var isAwaiting: Bool { contents.withLock { $0.awaited > 0 } }

    func takeAll() -> [Action] {
        if wake.read >= 0 {
            var pokes = [UInt8](repeating: 0, count: 64)
            while read(wake.read, &pokes, pokes.count) > 0 {}
        }
        return contents.withLock { contents in
            defer { contents.actions.removeAll() }
            return contents.actions
        }
    }
}

/// A request to stop the loop, safe to make from any thread (a signal handler's queue).
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func request() { flag.store(true, ordering: .relaxed) }

    public var isRequested: Bool { flag.load(ordering: .relaxed) }
}
