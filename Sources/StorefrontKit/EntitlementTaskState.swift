import Foundation

/// The state of a task that loads an entitlement, as StoreKit's `EntitlementTaskState` (iOS 17).
///
/// On Apple platforms SwiftUI's `currentEntitlementTask(for:)` and `subscriptionStatusTask(for:)` hand
/// it to the view; SwiftUI is not on Linux, so code makes one itself (from `Transaction.currentEntitlement(for:)`
/// or `Product.SubscriptionInfo.status(for:)`) and switches over it as on Apple.
public enum EntitlementTaskState<Value> {
    /// The task is loading the entitlement in the background.
    case loading
    /// The task failed to load the entitlement, with an error.
    case failure(any Error)
    /// The task successfully loaded the entitlement.
    case success(Value)

    /// The entitlement value if the task is successful; nil while loading or after a failure.
    public var value: Value? {
        if case .success(let value) = self { value } else { nil }
    }

    /// A new state, mapping the entitlement value if successful.
    public func map<NewValue>(_ transform: (Value) throws -> NewValue) rethrows -> EntitlementTaskState<NewValue> {
        switch self {
        case .loading: .loading
        case .failure(let error): .failure(error)
        case .success(let value): .success(try transform(value))
        }
    }

    /// A new state, mapping the entitlement value if successful.
    public func map<NewValue>(_ transform: (Value) async throws -> NewValue) async rethrows -> EntitlementTaskState<NewValue> {
        switch self {
        case .loading: .loading
        case .failure(let error): .failure(error)
        case .success(let value): .success(try await transform(value))
        }
    }

    /// A new state, from the entitlement value if successful.
    public func flatMap<NewValue>(_ transform: (Value) throws -> EntitlementTaskState<NewValue>) rethrows
        -> EntitlementTaskState<NewValue> {
        switch self {
        case .loading: .loading
        case .failure(let error): .failure(error)
        case .success(let value): try transform(value)
        }
    }

    /// A new state, from the entitlement value if successful.
    public func flatMap<NewValue>(_ transform: (Value) async throws -> EntitlementTaskState<NewValue>) async rethrows
        -> EntitlementTaskState<NewValue> {
        switch self {
        case .loading: .loading
        case .failure(let error): .failure(error)
        case .success(let value): try await transform(value)
        }
    }
}

extension EntitlementTaskState: Sendable where Value: Sendable {}

extension EntitlementTaskState where Value == VerificationResult<Transaction>? {
    /// The transaction with the entitlement if the task is successful and found one (`currentEntitlementTask`'s).
    public var transaction: VerificationResult<Transaction>? {
        if case .success(let value) = self { value } else { nil }
    }
}
