import Foundation
import Testing
import StoreEngine
@testable import StorefrontUI

@Suite("ProductStatus")
struct ProductStatusTests {
    @Test("shortDate says what Foundation's en_US abbreviated UTC date says, day by day")
    func shortDateMatchesFoundation() {
        // Every day from 1899 to 2101 (leap days, 1900 and 2100 not leap, 2000 leap), on odd
        // days at an hour that walks round the clock, on even days the last moment before midnight.
        let start = utcDate(1899, 1, 1).timeIntervalSince1970
        for day in 0..<(202 * 366) {
            let offset = day.isMultiple(of: 2) ? 86_399.75 : Double(day % 24) * 3_600 + 0.5
            let date = Date(timeIntervalSince1970: start + Double(day) * 86_400 + offset)
            #expect(StatusText.shortDate(date) == StatusText.formattedShortDate(date), "\(date)")
        }
    }

    @Test("shortDate of known dates, and before the Gregorian reform (Foundation's Julian days)")
    func shortDateKnownDates() {
        #expect(StatusText.shortDate(utcDate(2027, 10, 12, 23)) == "Oct 12, 2027")
        #expect(StatusText.shortDate(utcDate(2028, 2, 29)) == "Feb 29, 2028")
        #expect(StatusText.shortDate(Date(timeIntervalSince1970: -1)) == "Dec 31, 1969")
        let early = Date(timeIntervalSince1970: -14_000_000_000)
        #expect(StatusText.shortDate(early) == StatusText.formattedShortDate(early))
    }

    @Test("after reset app the paywall's row says the CLI's words (the engine's standing), then what brings it back")
    func resetAppWording() async throws {
        try await withDemoStore { store, _ in
            _ = try await store.app.buy(monthly)
            _ = try await store.app.buy(swiftShopping)
            try await store.testSession.reset(.app)
            let effects = EngineEffects(store: store, latency: .zero)
            var state = State(size: Size(columns: 120, rows: 30), account: store.account, storePath: "/tmp/store.sqlite",
                              paywall: demoCatalog.paywall)
            state.messages.policy = .deferred
            send(&state, try #require(await effects.perform(.load)), expecting: [])
            let snapshot = try #require(state.snapshot)
            // The live subscription is in currentEntitlements at once: no Restore for it.
            let subscribed = try #require(state.products.first { $0.id == monthly })
            #expect(snapshot.standing(of: subscribed).ownership == .owned)
            #expect(snapshot.standing(of: subscribed).text(for: subscribed).hasPrefix("Free trial until"), "its trial, as before the reinstall")
            #expect(!statusText(subscribed, state).contains("restores"))
            for (id, words) in [(swiftShopping, "Purchased, not on this device")] {
                let product = try #require(state.products.first { $0.id == id })
                // What `storefront products` prints for it.
                let cli = snapshot.standing(of: product).text(for: product)
                #expect(cli == words)
                #expect(statusText(product, state) == "\(cli): r restores")
                let row = try #require(render(state, timeZone: utc).lines.first { $0.contains(product.displayName) })
                #expect(row.contains("\(words): r restores") && !row.contains(state.glyphs.check), "\(row)")
            }
        }
    }
}
