import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

// A paywall library's period label: it takes the product's `subscriptionPeriodFormatStyle` and sets
// its members one by one, as code sets those of Apple's `Date.ComponentsFormatStyle`.

/// The library's label for a period in its configured style.
struct PeriodLabel {
    var style: Product.SubscriptionPeriodFormatStyle

    init(product: Product) { style = product.subscriptionPeriodFormatStyle }

    func text(_ period: Product.SubscriptionPeriod, from date: Date) -> String {
        period.formatted(style, referenceDate: date)
    }
}

/// The text with ICU's no-break spaces (French puts one between number and unit) made plain.
func plainSpaces(_ text: String) -> String {
    text.replacingOccurrences(of: "\u{00A0}", with: " ").replacingOccurrences(of: "\u{202F}", with: " ")
}

@Suite("Product.SubscriptionPeriodFormatStyle") struct SubscriptionPeriodFormatStyleTests {
    /// 2026-01-01 00:00 UTC: a month from it is 31 days.
    let january1 = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func eachMemberSetChangesTheText() async throws {
        try await inSession { _ in
            let monthly = try #require(try await Product.products(for: [ID.monthly]).first)
            let subscription = try #require(monthly.subscription)
            let period = subscription.subscriptionPeriod
            var label = PeriodLabel(product: monthly)
            #expect(label.text(period, from: january1) == "1 month")

            label.style.style = .abbreviated
            #expect(label.text(period, from: january1) == "1 mth")
            label.style.style = .narrow
            #expect(label.text(period, from: january1) == "1m")
            label.style.style = .spellOut
            #expect(label.text(period, from: january1) == "one month")

            label.style.style = .wide
            label.style.fields = [.day]
            #expect(label.text(period, from: january1) == "31 days")
            label.style.style = .abbreviated
            label.style.fields = [.week, .day]
            #expect(label.text(period, from: january1) == "4 wks, 3 days")
            label.style.style = .narrow
            #expect(label.text(period, from: january1) == "4w 3d")

            label.style.fields = nil
            label.style.style = .wide
            var hebrew = Calendar(identifier: .hebrew)
            hebrew.timeZone = TimeZone(identifier: "UTC") ?? hebrew.timeZone
            label.style.calendar = hebrew
            let measuredInHebrewMonths = label.text(period, from: january1)
            #expect(measuredInHebrewMonths != "1 month", "a Gregorian month is not a Hebrew one")
            #expect(label.style.calendar.identifier == .hebrew)
        }
    }

    @Test func theLocaleWritesWeeksAndDaysInItsLanguage() async throws {
        try await inSession { _ in
            let monthly = try #require(try await Product.products(for: [ID.monthly]).first)
            let trial = try #require(monthly.subscription?.introductoryOffer).period
            var style = monthly.subscriptionPeriodFormatStyle
            #expect(trial.formatted(style, referenceDate: january1) == "1 week")
            style.locale = Locale(identifier: "fr_FR")
            #expect(style.locale.identifier == "fr_FR")
            #expect(plainSpaces(trial.formatted(style, referenceDate: january1)) == "1 semaine")
            #expect(trial.formatted(style.locale(Locale(identifier: "ja_JP")), referenceDate: january1) == "1週間")
            style.fields = [.day]
            #expect(plainSpaces(trial.formatted(style, referenceDate: january1)) == "7 jours")
        }
    }

    @Test func aStyleMadeAsApplesInitialiserTakesItsArguments() async throws {
        try await inSession { _ in
            let yearly = try #require(try await Product.products(for: [ID.yearly]).first)
            let period = try #require(yearly.subscription).subscriptionPeriod
            let style = Product.SubscriptionPeriodFormatStyle(style: .abbreviated, locale: Locale(identifier: "en_US"),
                                                              calendar: Calendar(identifier: .gregorian), fields: [.month])
            #expect(period.formatted(style, referenceDate: january1) == "12 mths")
            #expect(period.formatted(yearly.subscriptionPeriodFormatStyle, referenceDate: january1) == "1 year")
        }
    }
}
