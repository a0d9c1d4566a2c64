import Foundation
import StoreEngine

/// Why `storefront serve` stops: a signal, or its store file replaced under it.
enum ServeStop {
    case signal(Int32)
    case replaced(String)
}

extension Session {
    /// Waits for SIGINT or SIGTERM, or for the store file to be replaced (looked at twice a second):
    /// a server that went on would answer from, and record deliveries in, a file no one reads again,
    /// and hold the old file's -wal and -shm beside the new one (every other process is refused then).
    static func waitForStop(watching store: Store) async -> ServeStop {
        let (events, continuation) = AsyncStream<ServeStop>.makeStream()
        let signals = Task { continuation.yield(.signal(await waitForStopSignal())) }
        let watch = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                if let reason = await store.fileReplacement() {
                    continuation.yield(.replaced(reason))
                    return
                }
            }
        }
        defer { watch.cancel() }
        for await event in events {
            _ = signals  // left waiting: the process ends after this
            return event
        }
        return .signal(SIGTERM)
    }
}
