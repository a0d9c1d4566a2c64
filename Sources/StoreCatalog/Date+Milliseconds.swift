import Foundation

extension Date {
    /// Milliseconds since 1970, as Apple's transaction payloads count.
    package var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// The instant `milliseconds` after 1970.
    package init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
