import Foundation
import StoreEngine
import StorefrontUI

/// `accounts family …`: Family Sharing groups of sandbox accounts, on the test session's face.
enum FamilyCommands {
    /// The family part of `accounts --help`.
    static let details = """
          accounts family        the families and their members (also: accounts family list)
          accounts family create NAME
                                 a family organized by the account in use (--account)
          accounts family add NAME ACCOUNT
                                 ACCOUNT joins (Apple's limit: the organizer and five members;
                                 one family at a time): it gets its own transaction of every
                                 active family-shareable purchase of the others, and they of its
          accounts family remove NAME ACCOUNT
                                 ACCOUNT leaves: what it had through the family, and what the others
                                 had of its purchases, is revoked (revocationReason other; REVOKE)
        A family-shareable purchase (familyShareable in the catalog: a non-consumable or an
        auto-renewable subscription) gives every other member a transaction of its own, with
        ownershipType familyShared, reaching its app as an update. A shared subscription renews
        and expires with the purchaser's; the purchaser's refund revokes the shares (the
        purchaser's revocationReason).
        """

}

/// `accounts family [list | create NAME | add NAME ACCOUNT | remove NAME ACCOUNT]`, part of ``AccountsCommand``.
enum FamilyAction: Equatable, Sendable {
    /// `accounts family [list]`: the families and their members.
    case list
    case create(name: String)
    case add(name: String, account: String)
    case remove(name: String, account: String)

    /// Reads the operands after `accounts family`.
    init(_ args: [String]) throws(UsageError) {
        switch (args.first, args.count) {
        case (nil, _), ("list", 1): self = .list
        case ("create", 2) where !args[1].isEmpty: self = .create(name: args[1])
        case ("add", 3) where !args[1].isEmpty && !args[2].isEmpty: self = .add(name: args[1], account: args[2])
        case ("remove", 3) where !args[1].isEmpty && !args[2].isEmpty: self = .remove(name: args[1], account: args[2])
        default:
            throw UsageError(description: "accounts family takes nothing, list, create NAME, add NAME ACCOUNT or remove NAME ACCOUNT",
                             command: "accounts")
        }
    }

    /// What is shared is what the catalog marks familyShareable.
    var needsCatalog: Bool {
        switch self {
        case .add, .remove: true
        case .list, .create: false
        }
    }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .list: try await session.families()
        case .create(let name): try await session.createFamily(name)
        case .add(let name, let account): try await session.addFamilyMember(account, to: name)
        case .remove(let name, let account): try await session.removeFamilyMember(account, from: name)
        }
    }
}

extension Family {
    var json: JSON {
        .object(["name": .string(name), "organizer": .string(organizer), "members": .array(members.map(JSON.string)),
                 "created": .date(created)])
    }
}

extension Session {
    func families() async throws -> Report {
        let families = try await testSession.families()
        let json = JSON.object(["families": .array(families.map(\.json))])
        guard !families.isEmpty else {
            return Report(json: json, "No families: \(ShellWord.storefront(store: store.path)) accounts family create NAME makes one, organized by the account in use.")
        }
        var table = Table("FAMILY", "ORGANIZER", "MEMBERS")
        for family in families {
            table.add(TerminalText.sanitized(family.name), TerminalText.sanitized(family.organizer),
                      family.members.map(TerminalText.sanitized).joined(separator: ", "))
        }
        return Report(json: json, table.rendered)
    }

    func createFamily(_ name: String) async throws -> Report {
        let family = try await testSession.createFamily(name)
        let shown = TerminalText.sanitized(name)
        return Report(json: .object(["family": family.json]),
                      "Created the family \(shown), organized by \(TerminalText.sanitized(family.organizer)). Add members with: \(ShellWord.storefront(store: store.path)) accounts family add \(ShellWord.word(name)) ACCOUNT")
    }

    func addFamilyMember(_ account: String, to name: String) async throws -> Report {
        let change = try await testSession.addFamilyMember(account, to: name)
        let members = change.family?.members.map(TerminalText.sanitized).joined(separator: ", ") ?? ""
        var lines = ["\(TerminalText.sanitized(account)) joined the family \(TerminalText.sanitized(name)) (\(members))."]
        lines += try await describe(change.shared, "shared with")
        return Report(json: change.json, lines)
    }

    func removeFamilyMember(_ account: String, from name: String) async throws -> Report {
        let change = try await testSession.removeFamilyMember(account, from: name)
        let ended = change.family == nil ? ": the family has ended" : ""
        var lines = ["\(TerminalText.sanitized(account)) left the family \(TerminalText.sanitized(name))\(ended)."]
        lines += try await describe(change.revoked, "revoked for")
        return Report(json: change.json, lines)
    }

    /// One line per shared or revoked transaction: what, for whom, its id; each reaches its member's app as an update.
    private func describe(_ transactions: [Transaction], _ verb: String) async throws -> [String] {
        var lines: [String] = []
        for transaction in transactions {
            lines.append("  \(try await displayName(transaction.productID)) \(verb) \(TerminalText.sanitized(transaction.account)): transaction \(transaction.id) (familyShared), an update for its app")
        }
        guard lines.isEmpty else { return lines }
        return [verb == "revoked for" ? "  Nothing was revoked: no active purchase was shared either way."
                : "  Nothing to share yet: no member has an active family-shareable purchase."]
    }
}

extension FamilyChange {
    var json: JSON {
        .object(["family": family?.json ?? .null, "shared": .array(shared.map(\.json)), "revoked": .array(revoked.map(\.json))])
    }
}
