import Foundation
import StoreCatalog
import StoreSigning

/// A family of sandbox accounts (`accounts family …`), as Apple's Family Sharing group:
/// a family-shareable purchase of one member entitles every other member.
public struct Family: Sendable, Hashable {
    public var name: String
    /// The account that made the family (Apple's organizer).
    public var organizer: String
    /// Every member, the organizer first, then in the order they joined.
    public var members: [String]
    /// When it was made, store time.
    public var created: Date

    public init(name: String, organizer: String, members: [String], created: Date) {
        (self.name, self.organizer, self.members, self.created) = (name, organizer, members, created)
    }
}
