import Foundation
import StoreCatalog
import StoreSigning

extension RenewalState {
    /// The `status` number of the Server API and notifications.
    public var appStoreStatus: Int {
        switch self {
        case .subscribed: 1
        case .expired: 2
        case .inBillingRetryPeriod: 3
        case .inGracePeriod: 4
        case .revoked: 5
        }
    }
}
