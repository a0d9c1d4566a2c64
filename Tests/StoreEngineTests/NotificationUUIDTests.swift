import Foundation
import Testing
@testable import StoreEngine

@Suite("Store: notificationUUID")
struct NotificationUUIDTests {
    @Test("each purchase's notification has its own random UUID: version 4, RFC 4122 variant, lowercase, the one it signed")
    func randomVersion4() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "coins")
            _ = try await buy(store, "coins")
            let notes = try await store.appStore.notifications(NotificationFilter(type: "ONE_TIME_CHARGE"))
            #expect(notes.count == 2)
            for note in notes {
                let uuid = try #require(UUID(uuidString: note.uuid))
                #expect(note.uuid == uuid.uuidString.lowercased())
                #expect(uuid.uuid.6 >> 4 == 4)  // version 4: random
                #expect(uuid.uuid.8 >> 6 == 0b10)  // the RFC 4122 variant
                let payload = try await store.app.verify(jws: note.signedPayload).payload
                #expect(payload["notificationUUID"] == .string(note.uuid))
            }
            #expect(Set(notes.map(\.uuid)).count == 2)
        }
    }

    @Test("the generator's UUIDs: version and variant bits set, the other 122 bits vary")
    func generatorBits() {
        let uuids = (0..<64).map { _ in Store.randomUUID() }
        #expect(Set(uuids).count == 64)
        #expect(uuids.allSatisfy { $0.uuid.6 >> 4 == 4 && $0.uuid.8 >> 6 == 0b10 })
        // Every byte takes more than one value across 64 (a byte left zero, or copied, would not).
        let bytes = uuids.map { withUnsafeBytes(of: $0.uuid) { Array($0) } }
        for index in 0..<16 { #expect(Set(bytes.map { $0[index] }).count > 1, "byte \(index)") }
    }
}
