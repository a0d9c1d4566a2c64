// razefaces products | buy PRODUCT_ID | restore | receipt | listen
//
// The RazeFaces tutorial's IAPHelper driven from a terminal. StoreKit 1 calls its observers on
// the main queue, so the program ends with dispatchMain(): the main queue runs from there on, and
// each command's notification handler exits. Uses ./products.json (or the one .storekit) and the
// store file the `storefront` CLI uses ($STOREFRONT_STORE), so `storefront approve ID` in another
// terminal reaches a deferred `buy` or `listen`.
import Foundation
import RazeFaces
import StorefrontKit

setvbuf(stdout, nil, _IOLBF, 0)  // each line as it is printed, even into a pipe
let arguments = Array(CommandLine.arguments.dropFirst())
let defaults = UserDefaults(suiteName: "razefaces") ?? .standard
do {
    try StorefrontKit.configure()
} catch {
    print("razefaces: \(error)")
    exit(1)
}
let store = IAPHelper(productIds: RazeFaceProducts.productIdentifiers, defaults: defaults)
let center = NotificationCenter.default
// Handlers run where the helper posts: on the main queue. (Not `queue: .main`: on Linux the main
// queue runs on a worker thread after dispatchMain(), and posting to OperationQueue.main from there waits on itself.)
var tokens: [NSObjectProtocol] = []

func priceText(_ product: SKProduct) -> String {
    let formatter = NumberFormatter()
    formatter.numberStyle = .currency
    formatter.locale = product.priceLocale
    return formatter.string(from: product.price) ?? "\(product.price)"
}

/// Exits once the queue holds no transaction: the helper finished what it delivered, and the store has it.
func exitWhenFinished(_ status: Int32) {
    if SKPaymentQueue.default().transactions.isEmpty { exit(status) }
    DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { exitWhenFinished(status) }
}

/// Refreshes the app receipt as a StoreKit 1 app does before sending it to its backend.
final class ReceiptReader: NSObject, SKRequestDelegate, @unchecked Sendable {
    func requestDidFinish(_ request: SKRequest) {
        // Apple's apps read Bundle.main.appStoreReceiptURL; on Linux AppStore.receiptURL stands in.
        guard let url = AppStore.receiptURL, let receipt = try? Data(contentsOf: url) else {
            print("razefaces: no receipt after the refresh")
            exit(1)
        }
        print("receipt \(url.path) (\(receipt.count) bytes)")
        print(receipt.base64EncodedString())
        exit(0)
    }

    func request(_ request: SKRequest, didFailWithError error: Error) {
        print("receipt refresh failed: \(error)")
        exit(1)
    }
}
let receiptReader = ReceiptReader()

func failureText(_ note: Notification) -> String {
    guard let transaction = note.object as? SKPaymentTransaction else { return "failed" }
    let code = (transaction.error as? SKError).map { "SKError.\($0.code) (\($0.code.rawValue))" } ?? "unknown error"
    return "\(transaction.payment.productIdentifier) failed: \(code)"
}

switch arguments.first {
case "products"?, nil:
    store.requestProducts { success, products in
        guard success, let products = products else {
            print("razefaces: could not load the products")
            exit(1)
        }
        for product in products.sorted(by: { $0.productIdentifier < $1.productIdentifier }) {
            let owned = store.isProductPurchased(product.productIdentifier) ? "purchased"
                : IAPHelper.canMakePayments() ? priceText(product) : "Not available"
            print(product.productIdentifier, product.localizedTitle, owned, separator: "\t")
        }
        exit(0)
    }
case "buy"? where arguments.count == 2:
    let wanted = arguments[1]
    tokens.append(center.addObserver(forName: .IAPHelperPurchaseNotification, object: nil, queue: nil) { note in
        guard note.object as? String == wanted else { return }
        print("purchased \(wanted)")
        exitWhenFinished(0)
    })
    tokens.append(center.addObserver(forName: .IAPHelperPurchaseFailedNotification, object: nil, queue: nil) { note in
        print(failureText(note))
        exitWhenFinished(1)
    })
    tokens.append(center.addObserver(forName: .IAPHelperPurchaseDeferredNotification, object: nil, queue: nil) { _ in
        print("\(wanted) is waiting for Ask to Buy: `storefront approve ID` in another terminal decides it")
    })
    store.requestProducts { _, products in
        guard let product = products?.first(where: { $0.productIdentifier == wanted }) else {
            print("razefaces: no product \(wanted)")
            exit(1)
        }
        store.buyProduct(product)
    }
case "restore"?:
    tokens.append(center.addObserver(forName: .IAPHelperRestoreFinishedNotification, object: nil, queue: nil) { note in
        if let error = note.object as? SKError {
            print("restore failed: SKError.\(error.code)")
            exit(1)
        }
        let owned = RazeFaceProducts.productIdentifiers.filter(store.isProductPurchased).sorted()
        print("owned:", owned.isEmpty ? "nothing" : owned.joined(separator: ", "))
        exitWhenFinished(0)
    })
    store.restorePurchases()
case "receipt"?:
    let refresh = SKReceiptRefreshRequest()
    refresh.delegate = receiptReader
    refresh.start()
case "listen"?:
    tokens.append(center.addObserver(forName: .IAPHelperPurchaseNotification, object: nil, queue: nil) { note in
        print("purchased \(note.object as? String ?? "?")")
    })
    tokens.append(center.addObserver(forName: .IAPHelperPurchaseFailedNotification, object: nil, queue: nil) { note in
        print(failureText(note))
    })
    print("listening for transactions; Ctrl-C to stop")
default:
    print("usage: razefaces products | buy PRODUCT_ID | restore | receipt | listen")
    exit(2)
}
dispatchMain()
