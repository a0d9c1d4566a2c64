import Synchronization
import Testing
@testable import StorefrontKit

/// How StorefrontKit's sequences (`Message.messages`, `Storefront.updates`, status updates) read
/// the store after each change the feed hands out.
@Suite struct ChangeReadingTests {
    private struct Busy: Error {}

    @Test func aReadThatFailsIsTriedAgainNotSkipped() async {
        let (changes, feed) = AsyncStream<Void>.makeStream()
        feed.yield()
        feed.finish()
        let attempts = Atomic<Int>(0)
        var values: [Int] = []
        await StoreContext.readAfterEachChange(changes, {
            let attempt = attempts.add(1, ordering: .relaxed).newValue
            if attempt < 3 { throw Busy() }
            return attempt
        }) { values.append($0) }
        // One change, read until it read: the value the third attempt got, once.
        #expect(values == [3])
    }

    @Test func eachChangeIsReadOnce() async {
        let (changes, feed) = AsyncStream<Void>.makeStream()
        for _ in 0..<3 { feed.yield() }
        feed.finish()
        let reads = Atomic<Int>(0)
        var values: [Int] = []
        await StoreContext.readAfterEachChange(changes, { reads.add(1, ordering: .relaxed).newValue }) { values.append($0) }
        #expect(values == [1, 2, 3])
    }
}
