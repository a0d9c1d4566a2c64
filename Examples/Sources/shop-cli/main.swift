import Foundation
import Shop

// shop-cli products | buy PRODUCT_ID | restore | listen
// Uses ./products.json (or the one .storekit) and the store file the `storefront` CLI uses,
// so `storefront approve ID` in another terminal reaches `listen`.
let ids = ["com.CephalopodStudio.PurchasePro.GoPro", "com.razeware.razefaces.swiftshopping",
           "com.example.storefront.coins100", "barcode_month_subscription", "barcode_year_subscription"]
let arguments = Array(CommandLine.arguments.dropFirst())
let shop = Shop(productIDs: ids)
do {
    try await shop.requestProducts()
    switch arguments.first {
    case "buy" where arguments.count == 2:
        print(try await shop.purchase(arguments[1]))
    case "restore":
        try await shop.restorePurchases()
        print("owned:", await shop.purchasedIdentifiers.sorted().joined(separator: ", "))
    case "listen":
        await shop.start()
        print("listening for updates; Ctrl-C to stop")
        var seen = 0
        while true {
            let updates = await shop.updates
            for transaction in updates.dropFirst(seen) {
                print("update: \(transaction.productID) #\(transaction.id)\(transaction.revocationDate == nil ? "" : " (refunded)")")
            }
            seen = updates.count
            try await Task.sleep(for: .milliseconds(200))
        }
    default:
        for product in await shop.products {
            print(product.id, product.displayName, product.displayPrice, separator: "\t")
        }
    }
} catch {
    print("shop-cli: \(error)")
    exit(1)
}
