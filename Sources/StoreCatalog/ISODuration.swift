import Foundation

/// An ISO-8601 duration such as `P1M`, `P1W`, `P3D` or `PT6H`: subscription
/// periods, offer periods, non-renewing durations and clock jumps.
public struct ISODuration: Sendable, Hashable, CustomStringConvertible {
    public var years = 0
    public var months = 0
    public var weeks = 0
    public var days = 0
    public var hours = 0
    public var minutes = 0
    public var seconds = 0

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0,
                hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        (self.years, self.months, self.weeks, self.days) = (years, months, weeks, days)
        (self.hours, self.minutes, self.seconds) = (hours, minutes, seconds)
    }

    /// Whether it is made of years and months only (a calendar month's day is kept through it).
    public var isWholeMonths: Bool {
        (years != 0 || months != 0) && weeks == 0 && days == 0 && hours == 0 && minutes == 0 && seconds == 0
    }

    /// Parses `PnYnMnWnDTnHnMnS` (each part optional, at least one present);
    /// nil for anything else.
    public init?(_ text: String) {
        var rest = Substring(text)
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var inTime = false
        var sawPart = false
        var number = ""
        var order = 0  // units must appear in order, each at most once
        for character in rest {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                order = 0
                continue
            }
            guard let value = Int(number), value <= 1_000_000 else { return nil }
            number = ""
            let units: [Character] = inTime ? ["H", "M", "S"] : ["Y", "M", "W", "D"]
            guard let position = units.firstIndex(of: character), position >= order else { return nil }
            order = position + 1
            sawPart = true
            switch (inTime, character) {
            case (false, "Y"): years = value
            case (false, "M"): months = value
            case (false, "W"): weeks = value
            case (false, "D"): days = value
            case (true, "H"): hours = value
            case (true, "M"): minutes = value
            default: seconds = value
            }
        }
        guard sawPart, number.isEmpty, !(inTime && rest.last == "T") else { return nil }
    }

    /// The canonical text, e.g. `P1M` or `PT6H`.
    public var description: String {
        var text = "P"
        for (value, unit) in [(years, "Y"), (months, "M"), (weeks, "W"), (days, "D")] where value != 0 {
            text += "\(value)\(unit)"
        }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            for (value, unit) in [(hours, "H"), (minutes, "M"), (seconds, "S")] where value != 0 {
                text += "\(value)\(unit)"
            }
        }
        return text == "P" ? "PT0S" : text
    }

    /// Words for people: "1 month", "3 months", "1 year", "2 weeks".
    public var spelledOut: String {
        let parts: [(Int, String)] = [(years, "year"), (months, "month"), (weeks, "week"), (days, "day"),
                                      (hours, "hour"), (minutes, "minute"), (seconds, "second")]
        let words = parts.filter { $0.0 != 0 }.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }
        return words.isEmpty ? "0 seconds" : words.joined(separator: " ")
    }

    /// The date this duration after `date`, by the Gregorian calendar in UTC
    /// (a month after January 31 is the last day of February, as Apple renews).
    public func after(_ date: Date) -> Date {
        var components = DateComponents()
        components.year = years
        components.month = months
        components.day = weeks * 7 + days
        components.hour = hours
        components.minute = minutes
        components.second = seconds
        return Self.calendar.date(byAdding: components, to: date) ?? date
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
