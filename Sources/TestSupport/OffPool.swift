import Dispatch
import Synchronization

/// Threads of their own for a test that waits for an event against a deadline.
///
/// On Swift's shared pool (two threads on this machine) a waiting task that sleeps between looks
/// goes to the back of the queue each time it wakes: in a full parallel run, behind every other
/// test's synchronous work (opening stores, starting clusters), so one look can come tens of seconds
/// after the last, and a deadline measures the queue instead of the code under test. Work started
/// with this executor as its preference resumes on a dispatch queue's threads instead.
public final class OffPoolExecutor: TaskExecutor, @unchecked Sendable {
    // Immutable; DispatchQueue is thread-safe.
    private let queue = DispatchQueue(label: "storefront.tests.off-pool", attributes: .concurrent)

    /// The one executor the tests share.
    public static let shared = OffPoolExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Waits up to `timeout` for `condition`, looking every `interval` off Swift's shared pool.
public func eventually(within timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(5),
                       _ condition: () -> Bool) async -> Bool {
    await withTaskExecutorPreference(OffPoolExecutor.shared) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: interval)
        }
        return condition()
    }
}

/// What a stream hands out, each value with when it arrived, read off Swift's shared pool: a
/// subscriber a test listens with.
public final class StreamLog<Element: Sendable>: Sendable {
    private final class Entries: Sendable {
        let values = Mutex<[(value: Element, at: ContinuousClock.Instant)]>([])
    }

    private let entries = Entries()
    private let task: Task<Void, Never>

    /// Starts reading `stream`; reading stops when the log is gone.
    public init(_ stream: AsyncStream<Element>) {
        let entries = self.entries
        task = Task(executorPreference: OffPoolExecutor.shared) {
            for await value in stream { entries.values.withLock { $0.append((value, .now)) } }
        }
    }

    deinit { task.cancel() }

    /// Every value heard so far, in order.
    public var all: [Element] { entries.values.withLock { $0.map(\.value) } }

    /// The first value heard that `matches`, with when it arrived, waiting up to `timeout`.
    public func first(within timeout: Duration = .seconds(30),
                      _ matches: (Element) -> Bool) async -> (value: Element, at: ContinuousClock.Instant)? {
        var found: (value: Element, at: ContinuousClock.Instant)?
        _ = await eventually(within: timeout, every: .milliseconds(1)) {
            found = entries.values.withLock { $0.first { matches($0.value) } }
            return found != nil
        }
        return found
    }
}
