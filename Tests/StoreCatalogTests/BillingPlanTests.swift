import Foundation
import Testing
@testable import StoreCatalog

/// A one-year subscription as Xcode 26.5 writes one with the Billing Plan picker set to
/// "Monthly with a 12-month commitment": a `billingPlans` list beside the up-front price.
private func storeKit(plans: String, period: String = "P1Y") -> String {
    """
    {"version": {"major": 4, "minor": 0}, "settings": {"_storefront": "USA"},
     "subscriptionGroups": [{"id": "21000001", "name": "Club", "subscriptions": [
       {"productID": "club.yearly", "referenceName": "Club Yearly", "displayPrice": "99.99",
        "recurringSubscriptionPeriod": "\(period)", "groupNumber": 1, "type": "RecurringSubscription",
        "billingPlans": \(plans),
        "localizations": [{"locale": "en_US", "displayName": "Club", "description": "The club"}]}]}]}
    """
}

/// The same subscription in products.json.
private func productsJSON(plans: String, period: String = "P1Y") -> String {
    """
    {"storefront": "USA",
     "storefronts": {"USA": {"currency": "USD", "locale": "en_US"}, "GBR": {"currency": "GBP", "locale": "en_GB"}},
     "subscriptionGroups": [{"id": "club", "displayName": "Club", "subscriptions": [
       {"id": "club.yearly", "displayName": "Club", "price": "99.99", "period": "\(period)", "level": 1,
        "billingPlans": \(plans)}]}],
     "products": []}
    """
}

private func failure(_ text: String, file: String) -> CatalogError? {
    do {
        _ = try Catalog.parse(Array(text.utf8), file: file)
        Issue.record("expected a CatalogError, the catalog loaded")
        return nil
    } catch {
        return error
    }
}

@Suite("Catalog: billing plans (monthly with a 12-month commitment)")
struct BillingPlanTests {
    @Test(".storekit billingPlans: BILLED_UPFRONT and MONTHLY read; the app sees up front and $9.99/month for 12 months")
    func storeKitPlans() throws {
        let catalog = try Catalog.parse(Array(storeKit(plans: """
            [{"billingPlanType": "BILLED_UPFRONT", "displayPrice": "99.99"},
             {"billingPlanType": "MONTHLY", "displayPrice": "9.99"}]
            """).utf8), file: "Products.storekit")
        #expect(catalog.notes.isEmpty)
        let item = try #require(catalog.product(id: "club.yearly"))
        #expect(item.subscription?.billingPlans == [BillingPlan(type: .monthly, price: decimal("9.99"))])
        let product = catalog.product(from: item, in: try #require(catalog.storefront("USA")))
        let terms = try #require(product.subscription?.pricingTerms)
        #expect(terms.map(\.billingPlanType) == [.billedUpfront, .monthly])
        #expect(terms[0].summary == "$99.99/year")
        #expect(terms[1].summary == "$9.99/month for 12 months")
        #expect(terms[1].billingPeriod == ISODuration(months: 1))
        #expect(terms[1].commitmentInfo?.price == decimal("119.88"))
        #expect(terms[1].commitmentInfo?.displayPrice == "$119.88")
        #expect(terms[1].commitmentInfo?.period == ISODuration(years: 1))
    }

    @Test("products.json billingPlans: the same shape with price and per-storefront prices; convert keeps them")
    func productsJSONPlans() throws {
        let catalog = try Catalog.parse(Array(productsJSON(plans: """
            [{"billingPlanType": "MONTHLY", "price": "9.99", "prices": {"GBR": "8.99"}}]
            """).utf8), file: "products.json")
        let item = try #require(catalog.product(id: "club.yearly"))
        let plan = try #require(item.subscription?.monthlyPlan)
        #expect(plan.price(in: try #require(catalog.storefront("GBR"))) == decimal("8.99"))
        #expect(plan.commitmentPrice(in: try #require(catalog.storefront("USA"))) == decimal("119.88"))
        let gbr = catalog.product(from: item, in: try #require(catalog.storefront("GBR")))
        #expect(gbr.subscription?.monthlyTerms?.summary == "£8.99/month for 12 months")
        // Written back as products.json and read again: the same catalog.
        let (document, _) = catalog.productsJSON()
        let back = try Catalog.parse(Array(document.serialized().utf8), file: "converted.json")
        #expect(back.product(id: "club.yearly")?.subscription?.billingPlans == item.subscription?.billingPlans)
        // And a .storekit file converted to products.json keeps its plan.
        let xcode = try Catalog.parse(Array(storeKit(plans: #"[{"billingPlanType": "MONTHLY", "displayPrice": "9.99"}]"#).utf8),
                                      file: "Products.storekit")
        let converted = try Catalog.parse(Array(xcode.productsJSON().0.serialized().utf8), file: "converted.json")
        #expect(converted.product(id: "club.yearly")?.subscription?.monthlyPlan?.price == decimal("9.99"))
    }

    @Test("bad billing plans are refused naming the file, the place and the fault")
    func badPlans() throws {
        let place = "subscriptionGroups[0].subscriptions[0].billingPlans"
        let unknown = try #require(failure(storeKit(plans: #"[{"billingPlanType": "WEEKLY", "displayPrice": "2.99"}]"#), file: "Bad.storekit"))
        #expect(unknown.kind == .invalid(path: "\(place)[0].billingPlanType"))
        #expect(unknown.description.hasPrefix("Bad.storekit: \(place)[0].billingPlanType: unknown billing plan type \"WEEKLY\""))
        #expect(unknown.reason.contains("\"BILLED_UPFRONT\" or \"MONTHLY\""))

        let monthlyOnMonth = try #require(failure(storeKit(plans: #"[{"billingPlanType": "MONTHLY", "displayPrice": "0.99"}]"#, period: "P1M"),
                                                  file: "Bad.storekit"))
        #expect(monthlyOnMonth.kind == .invalid(path: "\(place)[0].billingPlanType"))
        #expect(monthlyOnMonth.reason.contains("one-year subscription (P1Y), not P1M"))

        let noPrice = try #require(failure(storeKit(plans: #"[{"billingPlanType": "MONTHLY"}]"#), file: "Bad.storekit"))
        #expect(noPrice.kind == .invalid(path: "\(place)[0]"))
        #expect(noPrice.reason.contains("missing required field \"displayPrice\""))

        let twice = try #require(failure(productsJSON(plans: """
            [{"billingPlanType": "MONTHLY", "price": "9.99"}, {"billingPlanType": "MONTHLY", "price": "8.99"}]
            """), file: "products.json"))
        #expect(twice.kind == .invalid(path: "\(place)[1].billingPlanType"))
        #expect(twice.reason.contains("listed twice"))

        let free = try #require(failure(productsJSON(plans: #"[{"billingPlanType": "MONTHLY", "price": "0"}]"#), file: "products.json"))
        #expect(free.kind == .invalid(path: "\(place)[0].price"))

        let unknownStorefront = try #require(failure(productsJSON(plans: """
            [{"billingPlanType": "MONTHLY", "price": "9.99", "prices": {"FRA": "8.99"}}]
            """), file: "products.json"))
        #expect(unknownStorefront.kind == .invalid(path: "\(place)[0].prices.FRA"))

        let notAList = try #require(failure(productsJSON(plans: #"{"billingPlanType": "MONTHLY"}"#), file: "products.json"))
        #expect(notAList.kind == .invalid(path: place))
    }
}
