import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

// A store layer's entitlement state, as code switches over what SwiftUI's `currentEntitlementTask`
// and `subscriptionStatusTask` hand it on Apple platforms (here the layer makes the state itself).

/// The library's row label for an entitlement task's state.
func entitlementLabel(_ state: EntitlementTaskState<VerificationResult<Transaction>?>) -> String {
    switch state {
    case .loading:
        return "Loading…"
    case .failure(let error):
        return "Could not load: \(error)"
    case .success(.some(.verified(let transaction))):
        return "Owned (\(transaction.productID))"
    case .success(.some(.unverified(_, let error))):
        return "Unverified: \(error)"
    case .success(.none):
        return "Not owned"
    }
}

/// Loads the state as the SwiftUI task would.
func loadEntitlement(for productID: String) async -> EntitlementTaskState<VerificationResult<Transaction>?> {
    .success(await Transaction.currentEntitlement(for: productID))
}

@Suite("EntitlementTaskState") struct EntitlementTaskStateTests {
    @Test func aSwitchOverTheStatesOfARealEntitlement() async throws {
        try await inSession { _ in
            #expect(entitlementLabel(.loading) == "Loading…")
            #expect(entitlementLabel(await loadEntitlement(for: ID.goPro)) == "Not owned")
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            await (try result.payloadValue).finish()

            let state = await loadEntitlement(for: ID.goPro)
            #expect(entitlementLabel(state) == "Owned (\(ID.goPro))")
            #expect(try state.transaction?.payloadValue.productID == ID.goPro)
            #expect(try state.map { try $0?.payloadValue.productID }.value == .some(ID.goPro))
            let failing = state.flatMap { _ -> EntitlementTaskState<Int> in .failure(StoreKitError.notEntitled) }
            guard case .failure(let error) = failing else { Issue.record("flatMap kept success"); return }
            #expect("\(error)" == "StoreKitError.notEntitled")
            #expect(failing.value == nil)
            let loading: EntitlementTaskState<VerificationResult<Transaction>?> = .loading
            #expect(loading.transaction == nil && loading.value == nil)
            #expect(entitlementLabel(.failure(StoreKitError.networkError(URLError(.notConnectedToInternet)))).hasPrefix("Could not load"))
        }
    }

    @Test func aSubscriptionStatusStateMapsAsync() async throws {
        try await inSession { _ in
            let monthly = try #require(try await Product.products(for: [ID.monthly]).first)
            guard case .success(let result) = try await monthly.purchase() else { Issue.record("not bought"); return }
            await (try result.payloadValue).finish()
            let groupID = try #require(monthly.subscription).subscriptionGroupID
            let state: EntitlementTaskState<[Product.SubscriptionInfo.Status]> =
                .success(try await Product.SubscriptionInfo.status(for: groupID))
            let states = state.map { statuses in statuses.map(\.state) }
            #expect(states.value == [.subscribed])
            // An async transform: the entitlement behind the status, looked up.
            let entitled = await state.map { statuses in
                await Transaction.currentEntitlement(for: statuses.first?.transaction.unsafePayloadValue.productID ?? "") != nil
            }
            #expect(entitled.value == true)
            let none = await EntitlementTaskState<[Product.SubscriptionInfo.Status]>.loading.flatMap { _ -> EntitlementTaskState<Int> in
                await Transaction.currentEntitlement(for: ID.monthly) == nil ? .success(0) : .success(1)
            }
            #expect(none.value == nil, "loading stays loading")
        }
    }
}
