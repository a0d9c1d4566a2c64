import Foundation

/// What joining or leaving a family did: the shared transactions made, and those revoked.
public struct FamilyChange: Sendable, Hashable {
    public var family: Family?
    /// New `familyShared` transactions (each reaches its member's app as an update).
    public var shared: [Transaction] = []
    /// Shared transactions revoked (`revocationDate`, reason other), each reaching its member as an update.
    public var revoked: [Transaction] = []
}

/// A family command that cannot be done, saying why.
public struct FamilyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}
