/// An optional value kept out of line: 8 bytes in the struct that holds it, nil without an allocation.
///
/// A product's subscription terms and durations are ~300 bytes inline that 9 in 10 products of a
/// large catalog leave nil; out of line, 10,000 catalog products and their priced copies take
/// ~4 MB less (docs/performance.md, memory).
@propertyWrapper
public struct OutOfLine<Wrapped: Sendable & Hashable>: Sendable, Hashable {
    private final class Box: Sendable {
        let value: Wrapped
        init(_ value: Wrapped) { self.value = value }
    }

    private var box: Box?

    public init(wrappedValue: Wrapped?) {
        box = wrappedValue.map(Box.init)
    }

    public var wrappedValue: Wrapped? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.wrappedValue == rhs.wrappedValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}
