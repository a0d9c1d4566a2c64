import Foundation

/// Runs blocking work (starting a cluster, making test hosts) on a thread of its own and waits
/// for it by suspending: on Swift's cooperative pool (two threads on this machine) a
/// blocking initdb would hold up every other test's tasks for seconds.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.name = "storefront.tests.blocking"
        thread.start()
    }
}
