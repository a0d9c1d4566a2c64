extension StoreContext {
    /// Reads the store after each change the feed hands out, and hands each value to `use`.
    ///
    /// A read that fails (the file busy under another process's write, say) is tried again after a
    /// short wait, not skipped: the change it follows may be the last one for a long time, and a
    /// message or a status it carried would otherwise never reach the app.
    static func readAfterEachChange<Change, Value: Sendable>(_ changes: AsyncStream<Change>,
                                                             _ read: @Sendable () async throws -> Value,
                                                             _ use: (Value) -> Void) async {
        for await _ in changes {
            var wait = Duration.milliseconds(5)
            while !Task.isCancelled {
                if let value = try? await read() {
                    use(value)
                    break
                }
                try? await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(1))
            }
        }
    }
}
