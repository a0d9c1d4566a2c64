import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// `SKProductsRequest` and what it returns: `SKProductsResponse`, `SKProduct` and its offers.
@Suite struct SKProductsRequestTests {
    @Test func productsArriveOnTheMainQueueWithTheUnknownOnesInvalid() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let delegate = RecordingProductsDelegate()
            let request = SKProductsRequest(productIdentifiers: [ID.shopping, ID.monthly, "com.example.nosuch"])
            request.delegate = delegate
            request.start()
            #expect(await delegate.settle())
            let response = try #require(delegate.response)
            #expect(Set(response.products.map(\.productIdentifier)) == [ID.shopping, ID.monthly])
            #expect(response.invalidProductIdentifiers == ["com.example.nosuch"])
            #expect(delegate.calledOnMainQueue && delegate.finished && delegate.error == nil)
            let shopping = try #require(response.products.first { $0.productIdentifier == ID.shopping })
            #expect(shopping.localizedTitle == "Swift Shopping" && shopping.price == NSDecimalNumber(string: "0.99"))
            #expect(shopping.subscriptionPeriod == nil && shopping.introductoryPrice == nil && shopping.discounts.isEmpty)
        }
    }

    @Test func thePriceLocaleWritesTheStorefrontsPrice() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        session.storefront = "DEU"
        try await session.run {
            let yearly = try #require(try await loadSKProducts([ID.yearly]).first)
            let formatter = NumberFormatter()
            formatter.numberStyle = .currency
            formatter.locale = yearly.priceLocale
            let text = try #require(formatter.string(from: yearly.price))
            #expect(text.contains("39,99") && text.contains("€"), "\(text)")
            #expect(yearly.localizedTitle == "Jahresabo")
        }
        session.storefront = "JPN"
        try await session.run {
            let shopping = try #require(try await loadSKProducts([ID.shopping]).first)
            #expect(shopping.price == NSDecimalNumber(string: "160") && shopping.priceLocale.currency?.identifier == "JPY")
        }
    }

    @Test func aSubscriptionCarriesItsPeriodGroupAndOffers() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let products = try await loadSKProducts([ID.monthly, ID.yearly, ID.goPro])
            let monthly = try #require(products.first { $0.productIdentifier == ID.monthly })
            #expect(monthly.subscriptionPeriod?.unit == .month && monthly.subscriptionPeriod?.numberOfUnits == 1)
            #expect(monthly.subscriptionGroupIdentifier == "premium")
            let intro = try #require(monthly.introductoryPrice)
            #expect(intro.paymentMode == .freeTrial && intro.type == .introductory && intro.identifier == nil)
            #expect(intro.subscriptionPeriod.unit == .week && intro.subscriptionPeriod.numberOfUnits == 1 && intro.price == 0)
            let yearly = try #require(products.first { $0.productIdentifier == ID.yearly })
            let comeback = try #require(yearly.discounts.first)
            #expect(yearly.discounts.count == 1, "promotional offers only: not the code or win-back offers")
            #expect(comeback.identifier == "annual_comeback" && comeback.type == .subscription && comeback.paymentMode == .payUpFront)
            #expect(comeback.price == NSDecimalNumber(string: "29.99") && comeback.numberOfPeriods == 1)
            let goPro = try #require(products.first { $0.productIdentifier == ID.goPro })
            #expect(goPro.isFamilyShareable && !monthly.isFamilyShareable && goPro.subscriptionGroupIdentifier == nil)
        }
    }

    @Test func theStoresLoadProductsErrorFailsTheRequestWithItsSKErrorCode() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .loadProducts)
        try await session.run {
            let delegate = RecordingProductsDelegate()
            let request = SKProductsRequest(productIdentifiers: [ID.shopping])
            request.delegate = delegate
            request.start()
            #expect(await delegate.settle())
            let error = try #require(delegate.error as? SKError)
            #expect(error.code == .cloudServiceNetworkConnectionFailed && SKError.errorDomain == "SKErrorDomain")
            #expect(delegate.response == nil && !delegate.finished, "a failed request does not finish")
        }
    }

    @Test func aCancelledRequestTellsItsDelegateNothing() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        await session.run {
            let delegate = RecordingProductsDelegate()
            let request = SKProductsRequest(productIdentifiers: [ID.shopping])
            request.delegate = delegate
            // On the main queue, as apps call them: the answer is delivered there, so it cannot come
            // between the two (from another thread a quick answer could, before `cancel()`).
            await MainActor.run {
                request.start()
                request.cancel()
            }
            #expect(await !delegate.settle(within: 1.5))
            #expect(delegate.response == nil)
            request.start()  // started again, it answers
            #expect(await delegate.settle())
            #expect(delegate.response?.products.count == 1)
        }
    }
}
