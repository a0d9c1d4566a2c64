import Foundation

/// What an `SKProductsRequest` tells its delegate, as Apple's `SKProductsRequestDelegate`:
/// the response (required), then `requestDidFinish(_:)`. Called on the main queue.
public protocol SKProductsRequestDelegate: SKRequestDelegate {
    /// The products found and the identifiers that are not for sale.
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse)
}
