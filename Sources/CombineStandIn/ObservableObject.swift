import Foundation
import Synchronization

/// An object that says before it changes (Combine's `ObservableObject`). A class whose `@Published`
/// properties change gets `objectWillChange` for free, as in Combine; one may declare its own.
public protocol ObservableObject: AnyObject {
    /// What says the object is about to change.
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
        where ObjectWillChangePublisher.Failure == Never
    /// Sends before any `@Published` property of the object changes.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// The object's publisher, made when first asked for; every `@Published` property sends through it.
    public var objectWillChange: ObservableObjectPublisher { ObservableObjectPublisher.of(self) }
}

/// The publisher an `ObservableObject` sends its changes through (Combine's `ObservableObjectPublisher`).
public final class ObservableObjectPublisher: Publisher, @unchecked Sendable {
    // @unchecked: `Subscriptions` keeps its subscribers behind a lock.
    public typealias Output = Void
    public typealias Failure = Never

    private let subscriptions = Subscriptions<Void>()

    /// A publisher of its own, for a class that declares `objectWillChange` itself.
    public init() {}

    /// Says the object is about to change.
    public func send() { subscriptions.send(()) }

    public func attach(_ receiveValue: @escaping (Output) -> Void) -> AnyCancellable { subscriptions.add(receiveValue) }

    // MARK: - One per object

    /// The publishers of the objects that asked, each beside a weak reference to its object (an
    /// identifier is reused once its object is gone).
    private static let registry = Mutex<[ObjectIdentifier: (object: Weak, publisher: ObservableObjectPublisher)]>([:])

    struct Weak: @unchecked Sendable {
        // @unchecked: only compared for identity, under the registry's lock.
        weak var object: AnyObject?
    }

    /// The publisher of `object`, made on first use.
    static func of(_ object: AnyObject) -> ObservableObjectPublisher {
        registry.withLock { registry in
            let id = ObjectIdentifier(object)
            if let entry = registry[id], entry.object.object === object { return entry.publisher }
            if registry.count > 64 { registry = registry.filter { $0.value.object.object != nil } }
            let publisher = ObservableObjectPublisher()
            registry[id] = (Weak(object: object), publisher)
            return publisher
        }
    }
}
