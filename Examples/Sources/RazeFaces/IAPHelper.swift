// The RazeFaces tutorial's IAPHelper, in StoreKit 1 and Swift 5 as the tutorial wrote it; the one
// change for Linux is the import (StorefrontKit for StoreKit). Beside the tutorial: the defaults
// to keep purchases in can be given (tests use their own), and failures, deferrals and the end
// of a restore are posted too, so a program without a UI knows when to stop waiting.
import Foundation
import StorefrontKit

public typealias ProductIdentifier = String
public typealias ProductsRequestCompletionHandler = (_ success: Bool, _ products: [SKProduct]?) -> Void

extension Notification.Name {
    /// Posted with the product identifier as its object when a purchase or restore is delivered.
    public static let IAPHelperPurchaseNotification = Notification.Name("IAPHelperPurchaseNotification")
    /// Posted with the failed transaction as its object.
    public static let IAPHelperPurchaseFailedNotification = Notification.Name("IAPHelperPurchaseFailedNotification")
    /// Posted with the product identifier as its object when Ask to Buy defers a purchase.
    public static let IAPHelperPurchaseDeferredNotification = Notification.Name("IAPHelperPurchaseDeferredNotification")
    /// Posted when a restore has delivered everything (its object: the error, if it failed).
    public static let IAPHelperRestoreFinishedNotification = Notification.Name("IAPHelperRestoreFinishedNotification")
}

/// Lists the products, buys and restores them, and remembers what was bought: the app's
/// one object that talks to StoreKit, observing the payment queue from its creation on.
open class IAPHelper: NSObject {
    private let productIdentifiers: Set<ProductIdentifier>
    private var purchasedProductIdentifiers: Set<ProductIdentifier> = []
    private var productsRequest: SKProductsRequest?
    private var productsRequestCompletionHandler: ProductsRequestCompletionHandler?
    private let defaults: UserDefaults

    public init(productIds: Set<ProductIdentifier>, defaults: UserDefaults = .standard) {
        productIdentifiers = productIds
        self.defaults = defaults
        for productIdentifier in productIds where defaults.bool(forKey: productIdentifier) {
            purchasedProductIdentifiers.insert(productIdentifier)
        }
        super.init()
        SKPaymentQueue.default().add(self)
    }

    /// Stops observing the payment queue (an app never does; a test ends with it).
    public func stopObserving() { SKPaymentQueue.default().remove(self) }
}

// MARK: - StoreKit API

extension IAPHelper {
    public func requestProducts(_ completionHandler: @escaping ProductsRequestCompletionHandler) {
        productsRequest?.cancel()
        productsRequestCompletionHandler = completionHandler
        productsRequest = SKProductsRequest(productIdentifiers: productIdentifiers)
        productsRequest!.delegate = self
        productsRequest!.start()
    }

    public func buyProduct(_ product: SKProduct) {
        print("Buying \(product.productIdentifier)...")
        let payment = SKPayment(product: product)
        SKPaymentQueue.default().add(payment)
    }

    public func isProductPurchased(_ productIdentifier: ProductIdentifier) -> Bool {
        purchasedProductIdentifiers.contains(productIdentifier)
    }

    public class func canMakePayments() -> Bool {
        SKPaymentQueue.canMakePayments()
    }

    public func restorePurchases() {
        SKPaymentQueue.default().restoreCompletedTransactions()
    }
}

// MARK: - SKProductsRequestDelegate

extension IAPHelper: SKProductsRequestDelegate {
    public func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        let products = response.products
        for product in products {
            print("Found product: \(product.productIdentifier) \(product.localizedTitle) \(product.price.floatValue)")
        }
        productsRequestCompletionHandler?(true, products)
        clearRequestAndHandler()
    }

    public func request(_ request: SKRequest, didFailWithError error: Error) {
        print("Failed to load list of products.")
        print("Error: \(error.localizedDescription)")
        productsRequestCompletionHandler?(false, nil)
        clearRequestAndHandler()
    }

    private func clearRequestAndHandler() {
        productsRequest = nil
        productsRequestCompletionHandler = nil
    }
}

// MARK: - SKPaymentTransactionObserver

extension IAPHelper: SKPaymentTransactionObserver {
    public func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions {
            switch transaction.transactionState {
            case .purchased:
                complete(transaction: transaction)
            case .failed:
                fail(transaction: transaction)
            case .restored:
                restore(transaction: transaction)
            case .deferred:
                print("deferred... \(transaction.payment.productIdentifier) waits for Ask to Buy")
                NotificationCenter.default.post(name: .IAPHelperPurchaseDeferredNotification,
                                                object: transaction.payment.productIdentifier)
            case .purchasing:
                break
            }
        }
    }

    public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        NotificationCenter.default.post(name: .IAPHelperRestoreFinishedNotification, object: nil)
    }

    public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: Error) {
        print("Restore failed: \(error.localizedDescription)")
        NotificationCenter.default.post(name: .IAPHelperRestoreFinishedNotification, object: error)
    }

    private func complete(transaction: SKPaymentTransaction) {
        print("complete...")
        deliverPurchaseNotificationFor(identifier: transaction.payment.productIdentifier)
        SKPaymentQueue.default().finishTransaction(transaction)
    }

    private func restore(transaction: SKPaymentTransaction) {
        guard let productIdentifier = transaction.original?.payment.productIdentifier else { return }
        print("restore... \(productIdentifier)")
        deliverPurchaseNotificationFor(identifier: productIdentifier)
        SKPaymentQueue.default().finishTransaction(transaction)
    }

    private func fail(transaction: SKPaymentTransaction) {
        print("fail...")
        if let transactionError = transaction.error as NSError?,
           let localizedDescription = transaction.error?.localizedDescription,
           transactionError.code != SKError.paymentCancelled.rawValue {
            print("Transaction Error: \(localizedDescription)")
        }
        NotificationCenter.default.post(name: .IAPHelperPurchaseFailedNotification, object: transaction)
        SKPaymentQueue.default().finishTransaction(transaction)
    }

    private func deliverPurchaseNotificationFor(identifier: String?) {
        guard let identifier = identifier else { return }
        purchasedProductIdentifiers.insert(identifier)
        defaults.set(true, forKey: identifier)
        NotificationCenter.default.post(name: .IAPHelperPurchaseNotification, object: identifier)
    }
}
