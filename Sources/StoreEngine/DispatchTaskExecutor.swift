import Dispatch

/// A task executor on a dispatch queue of its own, for tasks that must run however busy Swift's
/// shared pool is (one thread a core, which blocking work elsewhere can hold for seconds) or that
/// block themselves: watching a store for changes, a lock's session, an app's update sequences.
/// A task started with it as its `executorPreference` runs, and resumes after each `await`, there.
package final class DispatchTaskExecutor: TaskExecutor, @unchecked Sendable {
    // Immutable; DispatchQueue is thread-safe.
    private let queue: DispatchQueue

    package init(label: String) { queue = DispatchQueue(label: label) }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
