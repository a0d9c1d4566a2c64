import CursesBackend
import Dispatch
import Foundation
import Scenarios
import StoreEngine
import StorefrontCLI
import StorefrontUI

/// Opens the ncurses paywall on the process's terminal and runs it until the
/// user quits. The terminal is restored on every way out: q, Ctrl-C, SIGTERM,
/// SIGHUP, or an error.
@Sendable func runPaywall(store: Store, invocation: Invocation, console: Console) async -> ExitCode {
    // Handled by the loop instead of killing the process with the terminal in raw mode.
    let stop = StopSignal()
    let sources = [SIGTERM, SIGHUP, SIGINT, SIGQUIT].map { signal in
        Glibc.signal(signal, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
        source.setEventHandler { stop.request() }
        source.resume()
        return source
    }
    defer { for source in sources { source.cancel() } }
    // ncurses is used from one thread only: the loop gets a thread of its own,
    // so engine work keeps running on the concurrency pool.
    return await withCheckedContinuation { (done: CheckedContinuation<ExitCode, Never>) in
        let thread = Thread {
            done.resume(returning: runLoop(store: store, invocation: invocation, console: console, stop: stop))
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

private func runLoop(store: Store, invocation: Invocation, console: Console, stop: StopSignal) -> ExitCode {
    let terminal: CursesTerminal<ClickTarget>
    do {
        terminal = try CursesTerminal<ClickTarget>.startOnProcessTerminal(environment: ProcessInfo.processInfo.environment)
    } catch {
        return ExitCode.noTerminal.report("\(error)", hint: "For scripts and pipes use the commands instead: storefront products, buy ID, restore, transactions (see storefront --help).",
                                          json: invocation.json, console: console)
    }
    defer { terminal.end() }
    var state = State(size: terminal.size, account: store.account, storePath: store.path, paywall: store.catalog.paywall)
    state.followsCurrentAccount = invocation.account == nil
    state.catalogNotes = store.catalog.notes
    state.recording = invocation.recordPath
    let effects = EngineEffects(store: store, latency: .milliseconds(invocation.latency ?? 400), catalogPath: invocation.catalogPath)
    let program = Program(state: state, terminal: terminal, stop: stop, perform: effects.perform)
    // Another process's writes and the renewals the clock makes due come from the store's change feed.
    program.subscribe(to: effects.storeChanges())
    var recorder: ScenarioRecorder?
    if let path = invocation.recordPath {
        do {
            let size = terminal.size
            recorder = try blocking { try await ScenarioRecorder(path: path, store: store, catalogPath: invocation.catalogPath, size: size) }
            program.observe = recorder!.observe
        } catch {
            console.err("storefront: error: cannot record to \(path): \(error)")
            return .failure
        }
    }
    program.run()
    if let recorder { try? blocking { await recorder.finish() } }
    if let reason = program.stoppedBecause {
        terminal.end()
        console.err("storefront: \(reason): the paywall stops (nothing is lost: every purchase is in the store file)")
        return .noTerminal
    }
    return .success
}

/// Runs async work to its end from the paywall's own thread (not a pool thread, so waiting is safe).
private func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result!.get()
}
