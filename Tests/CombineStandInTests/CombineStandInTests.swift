#if canImport(Combine)
import Combine
#else
import CombineStandIn
#endif
import Foundation
import Testing

/// A view model as store layers write one: an `ObservableObject` with `@Published` properties.
final class Cart: ObservableObject {
    @Published var items: [String] = []
    @Published private(set) var total: Decimal = 0

    func add(_ item: String, price: Decimal) {
        items.append(item)
        total += price
    }
}

/// A class that declares its own `objectWillChange`, as some do.
final class Counter: ObservableObject {
    let objectWillChange = ObservableObjectPublisher()
    private(set) var count = 0
    func increment() {
        objectWillChange.send()
        count += 1
    }
}

/// What a subscriber saw (the values are sent on the caller's thread).
final class Seen<Value> {
    private(set) var all: [Value] = []
    func append(_ value: Value) { all.append(value) }
}

@Suite struct CombineStandInTests {
    @Test func objectWillChangeSendsBeforeEachPublishedWrite() {
        let cart = Cart()
        var cancellables = Set<AnyCancellable>()
        let itemsWhenTold = Seen<[String]>()
        cart.objectWillChange.sink { itemsWhenTold.append(cart.items) }.store(in: &cancellables)
        cart.add("Go Pro", price: 4.99)
        // Two writes (items, total), each told before it happens.
        #expect(itemsWhenTold.all == [[], ["Go Pro"]])
        #expect(cart.items == ["Go Pro"] && cart.total == 4.99)
        #expect(cart.objectWillChange === cart.objectWillChange, "one publisher per object")
    }

    @Test func aPublishedProjectionSendsTheCurrentValueThenEachNewOneBeforeTheWrite() {
        let cart = Cart()
        let totals = Seen<Decimal>()
        let oldWhenSent = Seen<Decimal>()
        let subscription = cart.$total.sink { total in
            totals.append(total)
            oldWhenSent.append(cart.total)
        }
        cart.add("Coins", price: 0.99)
        cart.add("Coins", price: 0.99)
        #expect(totals.all == [0, 0.99, 1.98])
        #expect(oldWhenSent.all == [0, 0, 0.99], "sent in willSet: the property still holds the old value")
        subscription.cancel()
        cart.add("Coins", price: 0.99)
        #expect(totals.all.count == 3, "nothing after cancel")
    }

    @Test func aReleasedCancellableEndsItsSubscription() {
        let cart = Cart()
        let seen = Seen<[String]>()
        var subscription: AnyCancellable? = cart.$items.sink { seen.append($0) }
        cart.items = ["a"]
        subscription = nil
        cart.items = ["a", "b"]
        #expect(subscription == nil && seen.all == [[], ["a"]])
        var kept: [AnyCancellable] = []
        cart.$items.sink(receiveCompletion: { _ in }, receiveValue: { seen.append($0) }).store(in: &kept)
        #expect(seen.all.last == ["a", "b"] && kept.count == 1)
    }

    @Test func aClassMayDeclareItsOwnPublisher() {
        let counter = Counter()
        let told = Seen<Int>()
        let subscription = counter.objectWillChange.sink { told.append(counter.count) }
        counter.increment()
        counter.increment()
        #expect(told.all == [0, 1] && counter.count == 2)
        subscription.cancel()
    }

    @Test func eachObjectHasItsOwnPublisher() {
        let first = Cart(), second = Cart()
        let firstTold = Seen<Void>()
        let subscription = first.objectWillChange.sink { firstTold.append(()) }
        second.items = ["x"]
        #expect(firstTold.all.isEmpty)
        first.items = ["y"]
        #expect(firstTold.all.count == 1)
        subscription.cancel()
    }
}
