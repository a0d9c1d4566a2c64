import Foundation
import Testing
@testable import StoreCatalog

@Suite("Out-of-line optionals (products' subscription terms and durations)")
struct OutOfLineTests {
    @Test("a wrapped optional costs a pointer in the struct that holds it")
    func size() {
        // Inline, these were 57 to ~250 bytes each, in all 10,000 products of a large catalog.
        #expect(MemoryLayout<OutOfLine<Product.SubscriptionInfo>>.size == 8)
        #expect(MemoryLayout<OutOfLine<ISODuration>>.size == 8)
        #expect(MemoryLayout<OutOfLine<SubscriptionTerms>>.size == 8)
        #expect(MemoryLayout<Product>.stride < 200)
        #expect(MemoryLayout<CatalogProduct>.stride < 200)
    }

    @Test("values compare and hash by what they hold, not by their boxes")
    func equality() {
        let a = OutOfLine(wrappedValue: ISODuration(months: 1))
        let b = OutOfLine(wrappedValue: ISODuration(months: 1))
        let c = OutOfLine(wrappedValue: ISODuration(months: 3))
        let none = OutOfLine<ISODuration>(wrappedValue: nil)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
        #expect(a != none)
        #expect(none == OutOfLine<ISODuration>(wrappedValue: nil))
        #expect(Set([a, b, c, none]).count == 3)
    }

    @Test("a change through a copy leaves the original as it was")
    func valueSemantics() throws {
        let catalog = try fixtureCatalog()
        let original = try #require(catalog.products.first { $0.subscription != nil })
        var changed = original
        changed.subscription?.level += 1
        changed.duration = ISODuration(days: 7)
        #expect(changed.subscription?.level == (original.subscription?.level ?? 0) + 1)
        #expect(original.subscription?.level != changed.subscription?.level)
        #expect(original.duration == nil)
        #expect(changed != original)
        changed.subscription?.level -= 1
        changed.duration = nil
        #expect(changed == original)
    }
}
