import StorefrontKit
import StorefrontKitTest
import Testing

/// StoreKit's format styles and localized descriptions, on the store's products.
@Suite struct FormattingTests {
    @Test func priceFormatStyleWritesThePriceAsTheStorefrontDoes() async throws {
        try await inSession { session in
            let monthly = try await product(ID.monthly)
            #expect(monthly.price.formatted(monthly.priceFormatStyle) == "$4.99")
            #expect(monthly.price.formatted(monthly.priceFormatStyle) == monthly.displayPrice)
            session.storefront = "DEU"
            let german = try await product(ID.monthly)
            #expect(german.price.formatted(german.priceFormatStyle) == german.displayPrice)
            #expect(german.priceFormatStyle.currencyCode == "EUR" && german.displayPrice.contains("€"))
            #expect((german.price * 2).formatted(german.priceFormatStyle) == Decimal(string: "9.98")!.formatted(.currency(code: "EUR").locale(Locale(identifier: "de_DE"))))
        }
    }

    @Test func subscriptionPeriodsAreWrittenInTheirLargestWholeUnit() async throws {
        try await inSession { _ in
            let monthly = try await product(ID.monthly), yearly = try await product(ID.yearly)
            let period = try #require(monthly.subscription?.subscriptionPeriod)
            #expect(period.formatted(monthly.subscriptionPeriodFormatStyle) == "1 month")
            #expect(try #require(yearly.subscription).subscriptionPeriod.formatted(yearly.subscriptionPeriodFormatStyle) == "1 year")
            let trial = try #require(monthly.subscription?.introductoryOffer?.period)
            #expect(trial.formatted(monthly.subscriptionPeriodFormatStyle) == "1 week")
            // A month from January 31st is February's end, and still "1 month".
            let january31 = try #require(ISO8601DateFormatter().date(from: "2025-01-31T12:00:00Z"))
            let range = period.dateRange(referenceDate: january31)
            #expect(range.upperBound == ISO8601DateFormatter().date(from: "2025-02-28T12:00:00Z"))
            #expect(period.formatted(monthly.subscriptionPeriodFormatStyle, referenceDate: january31) == "1 month")
            #expect(trial.formatted(.units(allowed: [.days], width: .wide), referenceDate: january31) == "7 days")
        }
    }

    @Test func unitsAndKindsHaveTheirWords() async throws {
        try await inSession { _ in
            let monthly = try await product(ID.monthly), coins = try await product(ID.coins)
            let unit = try #require(monthly.subscription?.subscriptionPeriod.unit)
            #expect(unit.formatted(monthly.subscriptionPeriodUnitFormatStyle) == "month" && unit.localizedDescription == "month")
            #expect(monthly.type.localizedDescription == "Auto-Renewable Subscription" && coins.type.localizedDescription == "Consumable")
            let intro = try #require(monthly.subscription?.introductoryOffer)
            #expect(intro.type.localizedDescription == "Introductory Offer" && intro.paymentMode.localizedDescription == "Free Trial")
            let bought = try await buy(ID.monthly)
            #expect(bought.ownershipType.localizedDescription == "Purchased")
            #expect(bought.offer?.type.localizedDescription == "Introductory Offer")
            let status = try #require(try await monthly.subscription?.status.first)
            #expect(status.state.localizedDescription == "Subscribed")
            _ = try await store().appStore.refund(Int64(bought.id), reason: .developerIssue)
            let refunded = try #require(await Transaction.latest(for: ID.monthly)).unsafePayloadValue
            #expect(refunded.revocationReason?.localizedDescription == "Developer Issue")
            #expect(try #require(try await monthly.subscription?.status.first).state.localizedDescription == "Revoked")
        }
    }
}
