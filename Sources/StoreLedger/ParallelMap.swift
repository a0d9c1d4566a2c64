import Dispatch
import StoreCatalog
import StoreSigning

/// `transform` of each of `count` indices, worked out on every core in chunks of `chunk`
/// (P-256 signing and checking: a fraction of a millisecond each, many at once). `transform`
/// must be safe to call from several threads at once.
func parallelMap<T>(count: Int, chunk: Int = 1, _ transform: @Sendable (Int) -> T) -> [T] {
    // Each iteration writes its own slots only, so sharing the buffer is safe.
    nonisolated(unsafe) let results = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
    results.initialize(repeating: nil)
    defer {
        _ = results.deinitialize()
        results.deallocate()
    }
    DispatchQueue.concurrentPerform(iterations: (count + chunk - 1) / chunk) { part in
        for index in part * chunk..<min(count, (part + 1) * chunk) { results[index] = transform(index) }
    }
    return results.map { $0! }
}
