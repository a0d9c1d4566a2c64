import StoreEngine
import TerminalCore
import Testing
@testable import StorefrontUI

/// The table's measure of every product: a long catalog is measured a slice on each core.
@Suite("table measure")
struct TableMeasureTests {
    @Test("the widest status is found in whichever slice of a 5,000-product catalog holds it")
    func widestStatusInEverySlice() throws {
        let usa = try #require(demoCatalog.storefront("USA"))
        let base = try #require(demoCatalog.products(in: usa).first { $0.id == swiftShopping })
        let products = (0..<5_000).map { index in
            var product = base
            product.id = "product.\(index)"
            product.displayName = index == 3_333 ? "The Longest Product Name Of All" : "Product \(index)"
            return product
        }
        // The first, the last, and each side of every boundary between two, three and four slices.
        for owner in [0, 1_249, 1_250, 1_666, 1_667, 2_499, 2_500, 3_333, 3_750, 4_999] {
            let snapshot = StoreSnapshot(storefront: usa, products: products, owned: [:],
                                         entitled: ["product.\(owner)"], balances: [:], canMakePayments: true,
                                         events: [], dataVersion: 1)
            let state = loadedState(snapshot: snapshot)
            let widths = ContentWidths(state)
            let restores = statusText(products[owner], state)
            #expect(restores == "Purchased, not on this device: r restores", "product \(owner)")
            #expect(widths.status == TerminalText.width(restores), "product \(owner)")
            #expect(widths.name == TerminalText.width("The Longest Product Name Of All"))
        }
    }
}
