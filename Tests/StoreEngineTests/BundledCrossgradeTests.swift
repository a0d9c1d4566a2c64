import Foundation
import Testing
@testable import StoreEngine

/// The bundled products.json's premium group as a tester meets it: Annual at level 1, Monthly and
/// 3-Month side by side at level 2. Between Monthly and 3-Month is a crossgrade; their periods
/// differ, so (Apple's rule) it takes effect at the next renewal, nothing charged now.
@Suite("Subscriptions: the bundled catalog's crossgrade")
struct BundledCrossgradeTests {
    static let year = "barcode_year_subscription"
    static let month = "barcode_month_subscription"
    static let quarter = "barcode_quarter_subscription"

    /// A store of the repository's products.json, its clock at Jan 5, 2026, 09:00 UTC.
    func withBundledStore(_ body: (Store, TestClock) async throws -> Void) async throws {
        try await withTemporaryFolder { folder in
            let catalog = try Catalog.load(contentsOf: Repository.catalog)
            let clock = TestClock(utc(2026, 1, 5, 9))
            try await body(try Store(catalog: catalog, path: folder + "/store.sqlite", now: clock.closure), clock)
        }
    }

    @Test("the premium group has two plans at one level with different periods, below the annual plan")
    func catalogOffersACrossgrade() throws {
        let catalog = try Catalog.load(contentsOf: Repository.catalog)
        let group = try #require(catalog.group(id: "premium"))
        #expect(group.subscriptionIDs == [Self.year, Self.month, Self.quarter], "by level, then file order")
        let terms = try [Self.year, Self.month, Self.quarter].map { try #require(catalog.product(id: $0)?.subscription) }
        #expect(terms.map(\.level) == [1, 2, 2])
        #expect(terms.map(\.period) == [ISODuration(years: 1), ISODuration(months: 1), ISODuration(months: 3)])
        // Priced in every storefront, below three months of the monthly plan; named in German too.
        let quarterly = try #require(catalog.product(id: Self.quarter))
        let monthly = try #require(catalog.product(id: Self.month))
        for storefront in catalog.storefronts {
            let quarter = catalog.product(from: quarterly, in: storefront).price
            let month = catalog.product(from: monthly, in: storefront).price
            #expect(quarter > month && quarter < 3 * month, "\(storefront.countryCode): \(quarter) against \(month)/month")
        }
        let german = catalog.product(from: quarterly, in: try #require(catalog.storefront("DEU")))
        #expect(german.displayName == "Quartalsabo" && german.displayPrice == "12,99\u{A0}€")
        #expect(catalog.product(from: quarterly, in: try #require(catalog.storefront("JPN"))).displayPrice == "\u{A5}1,800")
    }

    @Test("a monthly subscriber: 3-Month is a crossgrade at the next renewal, Annual an upgrade at once; buying 3-Month does what the sheet said")
    func monthlyToQuarterly() async throws {
        try await withBundledStore { store, clock in
            _ = try await buy(store, Self.month)                    // a free week, to Jan 12
            clock.set(utc(2026, 1, 13))                               // renewed Jan 12: a paid month, to Feb 12
            let month = try #require(try await store.appStore.subscriptionStatuses().first?.transaction)
            #expect(month.productID == Self.month && month.expirationDate == utc(2026, 2, 12, 9))

            let snapshot = try await store.app.snapshot()
            let planned = try #require(snapshot.plannedChanges[Self.quarter])
            #expect(planned == PlannedChange(kind: .crossgrade, fromProductID: Self.month, isScheduled: true,
                                             effectiveDate: month.expirationDate))
            #expect(snapshot.plannedChanges[Self.year] == PlannedChange(kind: .upgrade, fromProductID: Self.month, isScheduled: false))

            let before = try await store.appStore.notifications().last?.id ?? 0
            guard case .changeScheduled(let change) = try await store.purchase(Self.quarter) else {
                Issue.record("buying 3-Month while on Monthly was not a scheduled change")
                return
            }
            #expect(change.kind == .crossgrade && change.isScheduled)
            #expect(change.fromProductID == Self.month && change.toProductID == Self.quarter)
            #expect(change.effectiveDate == month.expirationDate && change.current.id == month.id)
            #expect(change.summary == "crossgrade to \(Self.quarter) takes effect at the next renewal, Feb 12, 2026")
            // Nothing charged now; the monthly plan runs to its end and renews into 3-Month.
            #expect(try await store.transactions().filter { $0.productID == Self.quarter }.isEmpty)
            #expect(try await store.currentEntitlements().map(\.productID) == [Self.month])
            let status = try #require(try await store.appStore.subscriptionStatuses().first)
            #expect(status.renewalInfo.autoRenewPreference == Self.quarter && status.renewalInfo.willAutoRenew)
            // Apple: a crossgrade to another duration is DID_CHANGE_RENEWAL_PREF DOWNGRADE (it waits, as a downgrade does).
            let sent = try await store.appStore.notifications(after: before).map { "\($0.type) \($0.subtype ?? "")" }
            #expect(sent == ["DID_CHANGE_RENEWAL_PREF DOWNGRADE"])
            // The rows: Monthly says it changes, 3-Month when it starts.
            let rows = try await store.app.snapshot()
            let product = { (id: String) in try #require(rows.products.first { $0.id == id }) }
            #expect(rows.standing(of: try product(Self.month)).text(for: try product(Self.month)).hasPrefix("Until Feb 12, 2026, then changes"))
            #expect(rows.standing(of: try product(Self.quarter)).text(for: try product(Self.quarter)).hasPrefix("Starts Feb 12, 2026"))

            clock.set(utc(2026, 2, 13))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.productID == Self.quarter && renewal.reason == .renewal && renewal.originalID == month.originalID)
            #expect(renewal.purchaseDate == utc(2026, 2, 12, 9) && renewal.expirationDate == utc(2026, 5, 12, 9))
            #expect(renewal.price == decimal("12.99"))
            #expect(try await store.currentEntitlements().map(\.productID) == [Self.quarter])
        }
    }

    @Test("a 3-month subscriber: Monthly is a crossgrade too, Annual an upgrade; from Annual, 3-Month is a downgrade")
    func theOtherWays() async throws {
        try await withBundledStore { store, _ in
            let quarter = try await buy(store, Self.quarter)
            #expect(quarter.price == decimal("12.99") && quarter.expirationDate == utc(2026, 4, 5, 9), "no trial: 3-Month has none")
            var planned = try await store.app.snapshot().plannedChanges
            #expect(planned[Self.month] == PlannedChange(kind: .crossgrade, fromProductID: Self.quarter, isScheduled: true,
                                                         effectiveDate: quarter.expirationDate))
            #expect(planned[Self.year]?.kind == .upgrade && planned[Self.year]?.isScheduled == false)
            _ = try await buy(store, Self.year)
            planned = try await store.app.snapshot().plannedChanges
            #expect(planned[Self.quarter]?.kind == .downgrade && planned[Self.quarter]?.isScheduled == true)
            #expect(planned[Self.month]?.kind == .downgrade)
        }
    }
}
