import Foundation

// CombineStandIn: a stand-in for Apple's Combine on Linux, which has none. It holds the subset
// a StoreKit store class uses — `ObservableObject`, `@Published`, `objectWillChange`, `sink` on a
// `@Published` property's projection, `AnyCancellable` — so such a class compiles with its imports
// changed:
//
//     #if canImport(Combine)
//     import Combine
//     #else
//     import CombineStandIn
//     #endif
//
// It is not Combine: no operators, schedulers, subjects or back pressure, and no SwiftUI to
// observe the objects. It is not part of StorefrontKit either: StoreKit does not need it.

/// What sends values to whoever subscribes (Combine's `Publisher`, reduced to `sink`).
public protocol Publisher<Output, Failure> {
    /// The values it sends.
    associatedtype Output
    /// The error it may end with (`Never` for everything here).
    associatedtype Failure: Error

    /// Calls `receiveValue` with each value it sends from now on, until the returned
    /// cancellable is cancelled or released. (Combine's `receive(subscriber:)` in this stand-in.)
    func attach(_ receiveValue: @escaping (Output) -> Void) -> AnyCancellable
}

/// How a publisher ended (Combine's `Subscribers.Completion`).
public enum Subscribers {
    /// Finished, or failed with an error.
    public enum Completion<Failure: Error> {
        /// No more values.
        case finished
        /// Ended by an error.
        case failure(Failure)
    }
}

extension Publisher where Failure == Never {
    /// Calls `receiveValue` with each value from now on, as Combine's `sink(receiveValue:)`; keep the
    /// returned cancellable (`store(in:)`) for as long as the values are wanted.
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        attach(receiveValue)
    }
}

extension Publisher {
    /// Calls `receiveValue` with each value from now on, as Combine's `sink(receiveCompletion:receiveValue:)`.
    /// The publishers here never end, so `receiveCompletion` is not called.
    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                     receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        attach(receiveValue)
    }
}

/// A subscription that ends when cancelled or released (Combine's `AnyCancellable`).
public final class AnyCancellable: Hashable, @unchecked Sendable {
    // @unchecked: the only state, the cancel action, is behind `lock`.
    private let lock = NSLock()
    private var action: (() -> Void)?

    /// A cancellable that runs `cancel` once, when cancelled or released.
    public init(_ cancel: @escaping () -> Void) { action = cancel }

    deinit { cancel() }

    /// Ends the subscription (once; later calls do nothing).
    public func cancel() {
        lock.lock()
        let run = action
        action = nil
        lock.unlock()
        run?()
    }

    /// Keeps this cancellable in `set`, as Combine's `store(in:)`.
    public func store(in set: inout Set<AnyCancellable>) { set.insert(self) }

    /// Keeps this cancellable in `collection`, as Combine's `store(in:)`.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    public static func == (a: AnyCancellable, b: AnyCancellable) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Subscribers of one publisher, each called with every value sent.
final class Subscriptions<Value>: @unchecked Sendable {
    // @unchecked: the subscribers are behind `lock`; each is called outside it.
    private let lock = NSLock()
    private var subscribers: [(id: UInt64, receive: (Value) -> Void)] = []
    private var next: UInt64 = 0

    /// Adds `receive`; the cancellable removes it.
    func add(_ receive: @escaping (Value) -> Void) -> AnyCancellable {
        lock.lock()
        next += 1
        let id = next
        subscribers.append((id, receive))
        lock.unlock()
        return AnyCancellable { [weak self] in self?.remove(id) }
    }

    private func remove(_ id: UInt64) {
        lock.lock()
        subscribers.removeAll { $0.id == id }
        lock.unlock()
    }

    /// Calls every subscriber with `value`, in the order they subscribed.
    func send(_ value: Value) {
        lock.lock()
        let all = subscribers.map(\.receive)
        lock.unlock()
        for receive in all { receive(value) }
    }
}
