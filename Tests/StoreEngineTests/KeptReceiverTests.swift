import Foundation
import Testing
@testable import StoreEngine

/// The notification sender lists the kept receivers, then asks each for its next notification.
@Suite("kept receivers: removed between listing and delivering")
struct KeptReceiverTests {
    @Test("a receiver removed after the sender listed it gets nothing, not every notification from the start")
    func removedGetsNothing() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro")  // recorded before the receiver was added: never its
            let url = "http://127.0.0.1:9/kept"
            #expect(try await store.addReceiver(url))
            #expect(try await store.nextNotification(for: url, kept: true) == nil, "nothing recorded after it was added")
            #expect(try await store.removeReceiver(url))
            // The sender's list still names it: as a kept receiver it now gets nothing.
            #expect(try await store.nextNotification(for: url, kept: true) == nil)
            // A --notify URL (not kept) gets everything it has not had.
            #expect(try await store.nextNotification(for: url)?.notification != nil)
        }
    }
}
