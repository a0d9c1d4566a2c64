import Foundation

extension TestSessionFace {
    /// Every family in the store file, with its members.
    public func families() async throws -> [Family] { try await store.families() }

    /// The family the session's account (or `account`) belongs to.
    public func family(of account: String? = nil) async throws -> Family? { try await store.family(of: account) }

    /// Makes a family organized by the session's account, or `organizer`; throws ``FamilyError``.
    @discardableResult
    public func createFamily(_ name: String, organizer: String? = nil) async throws -> Family {
        try await store.createFamily(name, organizer: organizer)
    }

    /// `account` joins the family: shared transactions both ways, each arriving as an update.
    @discardableResult
    public func addFamilyMember(_ account: String, to family: String) async throws -> FamilyChange {
        try await store.addFamilyMember(account, to: family)
    }

    /// `account` leaves the family: what was shared with it, and what it shared, is revoked.
    @discardableResult
    public func removeFamilyMember(_ account: String, from family: String) async throws -> FamilyChange {
        try await store.removeFamilyMember(account, from: family)
    }
}
