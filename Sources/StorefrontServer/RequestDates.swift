import Foundation

/// The dates a request carries, in milliseconds since 1970, range-checked before they become
/// a `Date`: the store converts them back to milliseconds for its queries, and a number near
/// `Int64.max` (a backend's `Long.MAX_VALUE` for "no end") does not survive the round trip.
enum RequestDates {
    /// The last millisecond of 9999-12-31 (UTC), the end of the store's certificates: no date
    /// the store keeps lies beyond it, so a request that names a later one is refused.
    static let latest: Int64 = 253_402_300_799_999

    /// The instant `milliseconds` after 1970 when it is 0…``latest``; nil otherwise.
    static func date(milliseconds: Int64) -> Date? {
        guard (0...latest).contains(milliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// A date's text (a query's `startDate=…`, a JSON number's digits), refused with `error`
    /// unless it is a whole number of milliseconds in range.
    static func date(_ text: String, error: APIError) throws(APIError) -> Date {
        guard let milliseconds = Int64(text), let date = date(milliseconds: milliseconds) else { throw error }
        return date
    }
}
