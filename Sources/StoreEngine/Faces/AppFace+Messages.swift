import Foundation

extension AppFace {
    /// The account's messages from the App Store, oldest first (StoreKit's `Message.messages`), after
    /// queueing those due: billing problems, price increases to agree to, win-back offers, generic ones.
    public func messages() async throws -> [StoreMessage] { try await store.messages() }

    /// Shows a message now (`Message.display(in:)`): returns the sheet; the message is done.
    public func displayMessage(_ id: Int64) async throws -> (message: StoreMessage, sheet: MessageSheet) {
        try await store.displayMessage(id)
    }

    /// Holds a message to show later: it stays queued (and comes again at the next launch).
    @discardableResult
    public func deferMessage(_ id: Int64) async throws -> StoreMessage { try await store.deferMessage(id) }

    /// The sheet a message shows, without showing it.
    public func sheet(for message: StoreMessage) async throws -> MessageSheet { try await store.sheet(for: message) }
}
