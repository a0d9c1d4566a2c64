#if canImport(Combine)
import Combine
#else
import CombineStandIn
#endif
#if canImport(StoreKit)
import StoreKit
import StoreKitTest
#else
import StorefrontKit
import StorefrontKitTest
#endif
import Foundation
import Testing
import TestSupport

/// A store layer as SwiftUI apps write one: an `ObservableObject` on the main actor whose
/// `@Published` properties the views observe. Only its imports differ from an Apple platform's.
@MainActor
final class StoreModel: ObservableObject {
    @Published private(set) var products: [Product] = []
    @Published private(set) var purchasedIDs: Set<String> = []
    @Published var errorText: String?

    func load(_ identifiers: [String]) async {
        do {
            products = try await Product.products(for: identifiers).sorted { $0.price < $1.price }
        } catch {
            errorText = error.localizedDescription
        }
    }

    func buy(_ product: Product) async throws {
        if case .success(let result) = try await product.purchase(), case .verified(let transaction) = result {
            purchasedIDs.insert(transaction.productID)
            await transaction.finish()
        }
    }
}

@Suite struct StoreClassTests {
    @Test @MainActor func aStoreModelPublishesWhatItLoadsAndBuys() async throws {
        let session = try SKTestSession(contentsOf: URL(fileURLWithPath: Repository.catalog))
        try await session.run {
            let model = StoreModel()
            var cancellables = Set<AnyCancellable>()
            var changes = 0
            model.objectWillChange.sink { changes += 1 }.store(in: &cancellables)
            var purchased: [Set<String>] = []
            model.$purchasedIDs.sink { purchased.append($0) }.store(in: &cancellables)
            await model.load(["com.CephalopodStudio.PurchasePro.GoPro", "com.razeware.razefaces.swiftshopping"])
            #expect(model.products.count == 2 && changes == 1)
            try await model.buy(try #require(model.products.first))
            #expect(purchased == [[], [model.products[0].id]])
            #expect(changes == 2 && model.errorText == nil)
        }
    }
}
