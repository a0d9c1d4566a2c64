import Foundation

/// What the App Store's sheet for a message says, as a device shows it.
public struct MessageSheet: Sendable, Hashable {
    public var title: String
    public var lines: [String]
}
