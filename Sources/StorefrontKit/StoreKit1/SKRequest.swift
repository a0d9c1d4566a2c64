import Foundation
import Synchronization

/// A request to the App Store, as Apple's abstract `SKRequest`: make a subclass
/// (`SKProductsRequest`, `SKReceiptRefreshRequest`), set its ``delegate``, call ``start()``.
///
/// The request keeps itself alive until it has answered. Its delegate hears on the main queue,
/// so a command-line program must run the main run loop (`RunLoop.main.run()` or `dispatchMain()`).
open class SKRequest: NSObject, @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`'s lock; `delegate` is read on the main queue.

    /// The request's delegate (held weakly, as Apple's).
    open weak var delegate: (any SKRequestDelegate)?

    private struct State {
        var task: Task<Void, Never>?
        /// Counts starts and cancels: an answer is delivered only if none came after its start.
        var generation = 0
    }
    private let state = Mutex(State())
    /// Where requests do their work: a thread of StorefrontKit's own, off Swift's shared pool, so the
    /// delegate's callbacks never wait behind the rest of a busy process's tasks.
    private static let executor = StoreKitExecutor(label: "storefrontkit.request")

    public override init() { super.init() }

    /// Sends the request to the store; its answer reaches ``delegate`` on the main queue.
    /// Calling it again while the request is under way does nothing.
    open func start() {
        let context: StoreContext
        do { context = try StoreContext.resolve() } catch {
            let generation = state.withLock { state in state.generation += 1; return state.generation }
            deliver(generation) { request in
                request.delegate?.request(request, didFailWithError: SKError(.unknown, description: "\(error)"))
            }
            return
        }
        state.withLock { state in
            guard state.task == nil else { return }
            state.generation += 1
            let generation = state.generation
            state.task = Task(executorPreference: Self.executor) { [self] in
                do {
                    try await perform(in: context)
                    deliver(generation) { request in
                        request.deliverResponse()
                        request.delegate?.requestDidFinish(request)
                    }
                } catch {
                    deliver(generation) { request in
                        request.delegate?.request(request, didFailWithError: SKError(storeError: error))
                    }
                }
            }
        }
    }

    /// Cancels the request: its delegate hears nothing more (not even an error, as Apple's).
    open func cancel() {
        state.withLock { state in
            state.generation += 1
            state.task?.cancel()
            state.task = nil
        }
    }

    /// The request's work against the store, done off the main queue; each kind of request overrides it,
    /// keeping what it found for ``deliverResponse()``. Throwing fails the request with the matching `SKError`.
    package func perform(in context: StoreContext) async throws {}

    /// Hands the request's response to its delegate, on the main queue just before `requestDidFinish(_:)`.
    package func deliverResponse() {}

    /// Runs `body` on the main queue unless the request was cancelled or started again since
    /// start number `generation`; the request is done after.
    private func deliver(_ generation: Int, _ body: @escaping @Sendable (SKRequest) -> Void) {
        DispatchQueue.main.async { [self] in
            let live = state.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.task = nil
                return true
            }
            if live { body(self) }
        }
    }
}
