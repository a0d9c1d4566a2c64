import Foundation

/// A property of a class that publishes its values (Combine's `@Published`): setting it first tells
/// the object's `objectWillChange` and the property's own subscribers (`$property.sink`), which get
/// the new value while the property still holds the old one, as in Combine.
@propertyWrapper
public struct Published<Value> {
    private let storage: Storage

    /// The property's first value.
    public init(wrappedValue: Value) { storage = Storage(wrappedValue) }

    /// The property's first value (Combine's older spelling).
    public init(initialValue: Value) { self.init(wrappedValue: initialValue) }

    /// Only a class's properties publish, as in Combine.
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError("@Published is only available on properties of classes") }
        set { fatalError("@Published is only available on properties of classes") }
    }

    /// The property's values: the current one at once, then each new one (`$property`).
    public var projectedValue: Publisher { Publisher(storage) }

    /// Reads and writes the property of a class, telling its object and subscribers before a write.
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].storage.value }
        set {
            if let observable = object as? any ObservableObject,
               let publisher = observable.objectWillChange as? ObservableObjectPublisher {
                publisher.send()
            }
            object[keyPath: storageKeyPath].storage.set(newValue)
        }
    }

    /// The values of a `@Published` property (Combine's `Published.Publisher`).
    public struct Publisher: CombineStandIn.Publisher {
        public typealias Output = Value
        public typealias Failure = Never

        private let storage: Storage
        fileprivate init(_ storage: Storage) { self.storage = storage }

        /// Sends the current value at once, then each new value, as Combine's does.
        public func attach(_ receiveValue: @escaping (Value) -> Void) -> AnyCancellable {
            let cancellable = storage.subscriptions.add(receiveValue)
            receiveValue(storage.value)
            return cancellable
        }
    }

    /// The value and its subscribers, shared by the property and its publisher.
    fileprivate final class Storage: @unchecked Sendable {
        // @unchecked: the value is behind `lock`; subscribers are called outside it.
        private let lock = NSLock()
        private var current: Value
        let subscriptions = Subscriptions<Value>()

        init(_ value: Value) { current = value }

        var value: Value {
            lock.lock()
            defer { lock.unlock() }
            return current
        }

        /// Sends `value` to the subscribers, then keeps it (Combine publishes in `willSet`).
        func set(_ value: Value) {
            subscriptions.send(value)
            lock.lock()
            current = value
            lock.unlock()
        }
    }
}
