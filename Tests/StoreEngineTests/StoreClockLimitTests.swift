import Foundation
import Testing
@testable import StoreEngine

/// Issue 30 (15): the clock stops at the end of the certificates' validity.
@Suite("Store clock")
struct StoreClockLimitTests {
    /// Jumps of a hundred years are refused once one would pass 9999-12-31T23:59:59Z, the chain's
    /// end: the refusal names that limit, the clock stays, and a purchase made at the last time
    /// reached still verifies. Before, the clock went on to year 10026 and every purchase after failed.
    @Test func aClockAdvanceCannotPassTheCertificatesValidity() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let limit = await store.clockLimit()
            #expect(limit == Date(timeIntervalSince1970: 253_402_300_799))
            var refusal: (any Error)?
            for _ in 0..<80 {
                do { try await store.advanceClock(by: ISODuration(years: 100)) } catch { refusal = error; break }
            }
            let error = try #require(refusal, "80 jumps of P100Y from 2025 were all made")
            #expect("\(error)".contains("9999-12-31T23:59:59Z") && "\(error)".contains("certificates' validity"), "\(error)")
            let now = try await store.currentTime()
            #expect(now <= limit && now > limit.addingTimeInterval(-100 * 366 * 86_400))
            do {
                try await store.advanceClock(by: ISODuration(years: 100))
                Issue.record("a second jump past the limit was made")
            } catch {}
            #expect(try await store.currentTime() == now, "the refused jump moved the clock")
            let bought = try await buy(store, "pro")
            #expect(bought.purchaseDate == now)
            let payload = try await store.verify(jws: try #require(bought.jwsRepresentation)).payload
            #expect(payload["transactionId"] != nil)
        }
    }
}
