import Foundation
import Testing
@testable import StoreCatalog

@Suite("ISO-8601 durations")
struct ISODurationTests {
    @Test("valid forms parse into their parts", arguments: [
        ("P1M", ISODuration(months: 1)),
        ("P1W", ISODuration(weeks: 1)),
        ("P3M", ISODuration(months: 3)),
        ("P1Y", ISODuration(years: 1)),
        ("P3D", ISODuration(days: 3)),
        ("PT6H", ISODuration(hours: 6)),
        ("PT1M", ISODuration(minutes: 1)),  // minutes after T, not months
        ("PT30S", ISODuration(seconds: 30)),
        ("P1DT2H", ISODuration(days: 1, hours: 2)),
        ("P1Y2M3W4DT5H6M7S", ISODuration(years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7)),
        ("P12M", ISODuration(months: 12)),
    ])
    func valid(text: String, expected: ISODuration) {
        #expect(ISODuration(text) == expected)
    }

    @Test("anything else is refused", arguments: [
        "", "P", "1M", "PT", "P1H", "P1M1Y", "P1M2M", "PT1H2H", "PT1S1M", "P1DT", "p1m", "P1m", "P-1M", "P1.5M",
        "P M", " P1M", "P1M ", "PM", "P1", "T1H", "P1Y1X", "PT1D", "P1MT", "P99999999999999999999M",
    ])
    func invalid(text: String) {
        #expect(ISODuration(text) == nil)
    }

    @Test("the canonical text reads back the same", arguments: ["P1M", "P1W", "P3M", "P1Y", "PT6H", "P1DT2H", "P1Y2M3W4DT5H6M7S"])
    func description(text: String) throws {
        let duration = try #require(ISODuration(text))
        #expect(duration.description == text)
        #expect(ISODuration(duration.description) == duration)
    }

    @Test("the empty duration writes PT0S")
    func zero() {
        #expect(ISODuration().description == "PT0S")
    }

    @Test("spelled out for people, singular and plural", arguments: [
        ("P1M", "1 month"), ("P3M", "3 months"), ("P1Y", "1 year"), ("P2Y", "2 years"),
        ("P1W", "1 week"), ("P2W", "2 weeks"), ("P1D", "1 day"), ("PT6H", "6 hours"),
        ("P1DT2H", "1 day 2 hours"), ("PT1M", "1 minute"), ("PT1S", "1 second"),
    ])
    func spelledOut(text: String, words: String) throws {
        #expect(try #require(ISODuration(text)).spelledOut == words)
    }

    @Test("after() adds calendar units in UTC")
    func after() throws {
        let start = utc(2025, 3, 10, 8, 30)
        #expect(try #require(ISODuration("P1W")).after(start) == utc(2025, 3, 17, 8, 30))
        #expect(try #require(ISODuration("P3M")).after(start) == utc(2025, 6, 10, 8, 30))
        #expect(try #require(ISODuration("P1Y")).after(start) == utc(2026, 3, 10, 8, 30))
        #expect(try #require(ISODuration("PT6H")).after(start) == utc(2025, 3, 10, 14, 30))
        #expect(try #require(ISODuration("P1DT2H")).after(start) == utc(2025, 3, 11, 10, 30))
        #expect(try #require(ISODuration("PT90M")).after(start) == utc(2025, 3, 10, 10, 0))
        // A day is 24 hours in UTC, even across a daylight-saving change elsewhere.
        #expect(try #require(ISODuration("P1D")).after(utc(2025, 3, 30)).timeIntervalSince(utc(2025, 3, 30)) == 86_400)
    }

    @Test("a month after January 31 is the last day of February")
    func endOfMonth() throws {
        let month = try #require(ISODuration("P1M"))
        #expect(month.after(utc(2025, 1, 31, 12)) == utc(2025, 2, 28, 12))
        #expect(month.after(utc(2024, 1, 31, 12)) == utc(2024, 2, 29, 12))  // leap year
        #expect(month.after(utc(2025, 3, 31)) == utc(2025, 4, 30))
        #expect(try #require(ISODuration("P1Y")).after(utc(2024, 2, 29)) == utc(2025, 2, 28))
    }
}

@Suite("Decimal prices")
struct DecimalTextTests {
    @Test("plain decimals parse exactly", arguments: [("0.99", "0.99"), ("160", "160"), ("39.99", "39.99"), ("-1", "-1"), ("0", "0")])
    func parses(text: String, expected: String) throws {
        #expect(try #require(DecimalText.parse(text)) == decimal(expected))
    }

    @Test("no binary floating point: 0.1 + 0.2 is exactly 0.3")
    func exact() throws {
        let tenth = try #require(DecimalText.parse("0.1"))
        let fifth = try #require(DecimalText.parse("0.2"))
        let sum = tenth + fifth
        #expect(sum == decimal("0.3"))
        #expect(DecimalText.parse("0.3") == sum)
        #expect(DecimalText.format(sum) == "0.3")
        #expect(DecimalText.format(try #require(DecimalText.parse("0.99")) * 3) == "2.97")
    }

    @Test("anything but a plain decimal is refused", arguments: [
        "", ".", "1.", ".5", "1,99", "1e2", "0x10", "abc", "--1", "1-", "1.2.3", " 1", "1 ", "$1", "+1", "NaN",
        "1234567890123456789012345678901",  // 31 digits
    ])
    func refuses(text: String) {
        #expect(DecimalText.parse(text) == nil)
    }
}
