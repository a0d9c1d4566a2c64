/// Why a store operation failed, named as StoreKit names it so QA reports map
/// straight to Apple's documentation.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `Product.PurchaseError.purchaseNotAllowed`: the account may not make payments (parental
    /// controls, `canMakePayments` off). Nothing is charged. StoreKit 1 calls it
    /// `SKError.paymentNotAllowed`, which only the event log says (``storeKit1Name``).
    case purchaseNotAllowed
    /// `Product.PurchaseError.productUnavailable` (`SKError.storeProductNotAvailable`):
    /// no such product in the catalog.
    case productUnavailable(productID: String)
    /// `Product.PurchaseError.invalidQuantity`: a quantity below 1, above 10
    /// (Apple's limit), or above 1 for anything but a consumable.
    case invalidQuantity(Int)
    /// The app asked to consume more of a consumable than it has delivered.
    case insufficientBalance(productID: String, balance: Int, requested: Int)
    /// The app asked to consume a product that is not a consumable.
    case notConsumable(productID: String)
    /// No transaction with this id in the account's history.
    case transactionNotFound(id: Int64)
    /// `StoreKitError.notAvailableInStorefront`: the catalog does not offer the product in this storefront.
    case notAvailableInStorefront(productID: String, storefront: String)
    /// An error the store was told to raise (a setting, `offline`, or the tester's choice on the sheet).
    case simulated(SimulatedError, cause: String)
    /// The transaction reached the app unverified (a simulated `verificationError`): the app
    /// does not deliver it and leaves it unfinished, so it is offered again.
    case failedVerification(SimulatedError, transactionID: Int64)
    /// A `Product.PurchaseError` (or `StoreKitError`) the purchase really ran into, such as an unknown offer id.
    case purchaseError(SimulatedError, reason: String)
    /// The account has no subscription in this group.
    case noSubscription(groupID: String)
    /// The transaction is not in a state that allows the action (approving a purchased one, refunding twice).
    case invalidTransactionState(id: Int64, action: String, state: String)
    /// A price change the App Store would not make (not a subscription, the price it has already).
    case invalidPriceChange(productID: String, reason: String)
    /// No price increase waits for the account's subscription of this product (nothing to consent to or decline).
    case noPriceIncrease(productID: String)
    /// No message with this id for the account.
    case messageNotFound(id: Int64)

    /// The Swift case name users search for: `paymentNotAllowed`, `productUnavailable`.
    public var name: String {
        switch self {
        case .purchaseNotAllowed: "purchaseNotAllowed"
        case .productUnavailable: "productUnavailable"
        case .invalidQuantity: "invalidQuantity"
        case .insufficientBalance: "insufficientBalance"
        case .notConsumable: "notConsumable"
        case .transactionNotFound: "transactionNotFound"
        case .notAvailableInStorefront: "notAvailableInStorefront"
        case .simulated(let error, _), .failedVerification(let error, _), .purchaseError(let error, _): error.rawValue
        case .invalidTransactionState: "invalidTransactionState"
        case .noSubscription: "noSubscription"
        case .invalidPriceChange: "invalidPriceChange"
        case .noPriceIncrease: "noPriceIncrease"
        case .messageNotFound: "messageNotFound"
        }
    }

    /// Where Apple declares the case: `SKError`, `Product.PurchaseError`, or nil for the app's own errors.
    public var domain: String? {
        switch self {
        case .purchaseNotAllowed, .productUnavailable, .invalidQuantity: "Product.PurchaseError"
        case .notAvailableInStorefront: "StoreKitError"
        case .simulated(let error, _), .failedVerification(let error, _), .purchaseError(let error, _): error.domain.rawValue
        case .insufficientBalance, .notConsumable, .transactionNotFound, .invalidTransactionState, .noSubscription,
             .invalidPriceChange, .noPriceIncrease, .messageNotFound: nil
        }
    }

    /// The matching `SKError.Code` raw value, for StoreKit 1 logs.
    public var skErrorCode: Int? {
        switch self {
        case .purchaseNotAllowed: 4
        case .productUnavailable: 5
        case .invalidQuantity: 3  // paymentInvalid
        case .notAvailableInStorefront: 5
        case .simulated(let error, _), .failedVerification(let error, _), .purchaseError(let error, _): error.skErrorCode
        default: nil
        }
    }

    /// The `SKError.Code` case's name where StoreKit 1 names the failure otherwise than
    /// StoreKit 2, for the StoreKit 1 event log: `paymentNotAllowed` for `purchaseNotAllowed`.
    public var storeKit1Name: String? {
        switch self {
        case .purchaseNotAllowed: "paymentNotAllowed"
        case .simulated(.purchaseNotAllowed, _), .purchaseError(.purchaseNotAllowed, _): "paymentNotAllowed"
        default: nil
        }
    }

    /// A plain sentence for people.
    public var message: String {
        switch self {
        case .purchaseNotAllowed:
            "This account is not allowed to make payments (canMakePayments is false)."
        case .productUnavailable(let id):
            "The product \"\(id)\" is not available in this store's catalog."
        case .invalidQuantity(let quantity):
            "The quantity \(quantity) is not allowed: 1 to 10 for consumables, 1 for everything else."
        case .insufficientBalance(let id, let balance, let requested):
            "Cannot consume \(requested) of \"\(id)\": the balance is \(balance)."
        case .notConsumable(let id):
            "\"\(id)\" is not a consumable."
        case .transactionNotFound(let id):
            "No transaction \(id) in this account's history."
        case .notAvailableInStorefront(let id, let storefront):
            "The product \"\(id)\" is not available in the \(storefront) storefront."
        case .simulated(let error, let cause):
            "\(error.message) (simulated: \(cause))"
        case .failedVerification(let error, let id):
            "Transaction \(id) reached the app unverified (\(error.rawValue), simulated by verificationError); the app does not deliver it and leaves it unfinished."
        case .invalidTransactionState(let id, let action, let state):
            "Cannot \(action) transaction \(id): it is \(state)."
        case .purchaseError(let error, let reason):
            "\(error.message) (\(reason))"
        case .noSubscription(let groupID):
            "This account has no subscription in the group \"\(groupID)\"."
        case .invalidPriceChange(let id, let reason):
            "Cannot change the price of \"\(id)\": \(reason)."
        case .noPriceIncrease(let id):
            "No price increase waits for this account's subscription of \"\(id)\"."
        case .messageNotFound(let id):
            "No message \(id) for this account."
        }
    }

    public var description: String {
        "\(domain.map { $0 + "." } ?? "")\(name): \(message)"
    }
}
