import Foundation

/// What every StoreKit 1 request tells its delegate, as Apple's `SKRequestDelegate`.
///
/// Apple's methods are `optional`; without an Objective-C runtime they are requirements with
/// default implementations that do nothing. Called on the main queue.
public protocol SKRequestDelegate: NSObjectProtocol {
    /// The request is done: after its response (if it has one); nothing more will come from it.
    func requestDidFinish(_ request: SKRequest)
    /// The request failed; `requestDidFinish(_:)` is not called.
    func request(_ request: SKRequest, didFailWithError error: any Error)
}

extension SKRequestDelegate {
    public func requestDidFinish(_ request: SKRequest) {}
    public func request(_ request: SKRequest, didFailWithError error: any Error) {}
}
