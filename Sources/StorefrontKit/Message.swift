import Foundation
import StoreEngine

/// A message the App Store sends the app (StoreKit's `Message`): a billing problem, a price
/// increase to agree to, a win-back offer, or a generic one. Take them from ``messages`` and
/// ``display()`` each when it suits the app; one not displayed comes again at the next launch.
public struct Message: Sendable, Hashable, Identifiable {
    /// The store's id of the message (StoreKit's messages have none the app sees).
    public let id: UInt64
    /// Why the App Store sent it.
    public let reason: Reason
    let context: StoreContext

    init(_ message: StoreMessage, context: StoreContext) {
        id = UInt64(message.id)
        reason = Reason(message.reason)
        self.context = context
    }

    /// Why the App Store sends a message (StoreKit's `Message.Reason`).
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The raw value (Storefront's numbering: StoreKit documents none).
        public let rawValue: Int
        /// Creates the reason with this raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// A message for a generic reason.
        public static let generic = Reason(rawValue: 0)
        /// A price increase of a subscription that needs the customer's consent.
        public static let priceIncreaseConsent = Reason(rawValue: 1)
        /// A renewal failed to bill: the customer should update their payment method.
        public static let billingIssue = Reason(rawValue: 2)
        /// The customer is eligible for a win-back offer.
        public static let winBackOffer = Reason(rawValue: 3)

        static let engineReasons: [MessageReason] = [.generic, .priceIncreaseConsent, .billingIssue, .winBackOffer]

        init(_ reason: MessageReason) { self.init(rawValue: Self.engineReasons.firstIndex(of: reason) ?? 0) }

        /// The case name.
        public var description: String { Self.engineReasons[safe: rawValue]?.rawValue ?? "\(rawValue)" }
    }

    /// What the sheet a device shows for a message says.
    public struct Sheet: Sendable, Hashable {
        /// The sheet's title ("Billing Problem", "Subscription Price Increase", …).
        public let title: String
        /// Its text, a line each.
        public let lines: [String]
    }

    /// Shows the message now: the App Store's sheet (on a device, StoreKit's `display(in:)`). It is
    /// done from then on. Agreeing to a price increase is the customer's answer, not the app's:
    /// `storefront price-increase consent PRODUCT_ID`, or the test session's `consentToPriceIncreaseForTransaction`.
    @discardableResult
    public func display() async throws -> Sheet {
        let shown = try await storeKitCall { try await context.store.app.displayMessage(Int64(id)) }
        context.changed()
        return Sheet(title: shown.sheet.title, lines: shown.sheet.lines)
    }

    /// The messages the App Store sends the app, as they come: those waiting at launch (pending or
    /// deferred), then — within a second — each one queued after, by this process or another one
    /// using the same store file. Each comes once per sequence.
    public static var messages: Messages {
        // Read outside a test session's scope, it moves to each new session (StoreContext+Choice.swift).
        let scope = StoreContext.current
        return Messages { StoreContext.following(scope: scope) { MessagesMonitor.stream(context: $0) } }
    }

    /// An asynchronous sequence of messages (StoreKit's `Message.Messages`).
    public struct Messages: AsyncSequence, Sendable {
        /// Each message as it reached the app.
        public typealias Element = Message
        let makeStream: @Sendable () -> AsyncStream<Message>

        /// Starts the sequence.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: makeStream().makeAsyncIterator()) }

        /// Iterates the sequence.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Message>.AsyncIterator
            /// The next message; never nil while the sequence runs.
            public mutating func next() async -> Message? { await base.next() }
        }
    }

    public static func == (a: Message, b: Message) -> Bool { a.id == b.id && a.reason == b.reason && a.context === b.context }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// Hands the app the messages queued for it, at each change the store's change feed hands out.
enum MessagesMonitor {
    static func stream(context: StoreContext) -> AsyncStream<Message> {
        AsyncStream { continuation in
            let changes = context.store.changes.changes(includingUnfinished: false)
            let task = Task(executorPreference: StoreKitExecutor.monitors) { await watch(context, changes, continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// At each change (a write, or the clock making a billing problem or a win-back offer due),
    /// yields each message not yet displayed, once.
    private static func watch(_ context: StoreContext, _ changes: AsyncStream<StoreChange>,
                              _ continuation: AsyncStream<Message>.Continuation) async {
        var yielded = Set<Int64>()
        await StoreContext.readAfterEachChange(changes, { try await context.store.app.messages() }) { messages in
            for message in messages where message.state != .displayed {
                guard yielded.insert(message.id).inserted else { continue }
                continuation.yield(Message(message, context: context))
            }
        }
    }
}
