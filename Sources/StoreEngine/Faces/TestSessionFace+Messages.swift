import Foundation

extension TestSessionFace {
    /// Queues a message as the App Store would send it (a tester's `message send REASON`).
    @discardableResult
    public func sendMessage(_ reason: MessageReason, productID: String? = nil) async throws -> StoreMessage {
        try await store.sendMessage(reason, productID: productID)
    }
}
