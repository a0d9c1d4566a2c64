import Foundation

extension Store {
    /// Apple's limit: the organizer and up to five family members.
    static let familyLimit = 6

    // MARK: - Families

    func families() throws -> [Family] { try ledger.families() }

    /// The family `account` (this store's by default) belongs to, if any.
    func family(of account: String? = nil) throws -> Family? { try ledger.family(of: account ?? self.account) }

    /// Makes a family organized by `organizer` (this store's account by default).
    func createFamily(_ name: String, organizer: String? = nil) throws -> Family {
        let organizer = organizer ?? account
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw FamilyError(description: "a family needs a name") }
        let date = try currentTime()
        return try ledger.write {
            guard try !ledger.families().contains(where: { $0.name == name }) else {
                throw FamilyError(description: "there is a family \(name) already")
            }
            if let other = try ledger.family(of: organizer) {
                throw FamilyError(description: "\(organizer) is in the family \(other.name) already: an account is in one family at a time")
            }
            try ledger.ensureAccount(organizer, at: date)
            try ledger.insertFamily(name, organizer: organizer, at: date)
            return try ledger.family(of: organizer)!
        }
    }

    /// `member` joins the family `name`: it gets a `familyShared` transaction of every other
    /// member's active family-shareable purchase, and they get one of each of its own.
    func addFamilyMember(_ member: String, to name: String) throws -> FamilyChange {
        // Renewals due first: what is shared is what each member has now.
        try processRenewals()
        let date = try currentTime()
        return try ledger.write {
            guard let family = try ledger.families().first(where: { $0.name == name }) else {
                throw FamilyError(description: "there is no family \(name)")
            }
            if let current = try ledger.family(of: member) {
                throw FamilyError(description: current.name == name ? "\(member) is in the family \(name) already"
                                  : "\(member) is in the family \(current.name): an account is in one family at a time (remove it there first)")
            }
            guard family.members.count < Self.familyLimit else {
                throw FamilyError(description: "the family \(name) is full: the organizer and up to five members, as Apple's")
            }
            try ledger.ensureAccount(member, at: date)
            try ledger.insertMember(member, family: name, at: date)
            var change = FamilyChange(family: try ledger.family(of: member))
            for other in family.members {
                change.shared += try shareEntitlements(of: other, with: member, at: date)
                change.shared += try shareEntitlements(of: member, with: other, at: date)
            }
            return change
        }
    }

    /// `member` leaves the family `name` (the organizer only as its last member, which ends
    /// the family): what it had through the family, and what the others had of its purchases,
    /// is revoked (reason other, as Apple's `revocationReason` 0 for a member who leaves).
    func removeFamilyMember(_ member: String, from name: String) throws -> FamilyChange {
        try processRenewals()
        let date = try currentTime()
        return try ledger.write {
            guard let family = try ledger.families().first(where: { $0.name == name }) else {
                throw FamilyError(description: "there is no family \(name)")
            }
            guard family.members.contains(member) else { throw FamilyError(description: "\(member) is not in the family \(name)") }
            guard member != family.organizer || family.members.count == 1 else {
                throw FamilyError(description: "\(member) organizes the family \(name): remove the other members first (the family ends with its organizer)")
            }
            if family.members.count == 1 { try ledger.deleteFamily(name) } else { try ledger.deleteMember(member) }
            var change = FamilyChange(family: try ledger.families().first { $0.name == name })
            let others = family.members.filter { $0 != member }
            // What the member had from the others, and what the others had from the member.
            var lost = try activeShares(account: member, at: date)
            for other in others {
                lost += try activeShares(account: other, at: date).filter { try ledger.sharedPurchase(of: $0.id)?.account == member }
            }
            for transaction in lost {
                change.revoked.append(try revokeShare(transaction, reason: .other, at: date,
                                                      why: "\(member) left the family \(name)"))
            }
            return change
        }
    }

    /// `account`'s shared transactions that grant access now (a subscription's in its grace period too).
    func activeShares(account: String, at date: Date) throws -> [Transaction] {
        let inGrace = Set(try transactionsInGrace(at: date, account: account).map(\.id))
        return try ledger.unrevokedShares(account: account).filter { $0.isActive(at: date) || inGrace.contains($0.id) }
    }

    // MARK: - Sharing

    /// Shares a purchaser's new transaction (a purchase, a renewal, an upgrade) with every
    /// other member of its family, when the product is family-shareable: each gets its own.
    /// The caller's notification for the purchase reaches the members too (``notify``).
    @discardableResult
    func shareWithFamily(_ purchase: Transaction, at date: Date) throws -> [Transaction] {
        guard isShareable(purchase), let family = try ledger.family(of: purchase.account) else { return [] }
        return try family.members.filter { $0 != purchase.account }.map { try share(purchase, with: $0, at: date) }
    }

    /// Whether a transaction is one Family Sharing shares: the purchaser's own, purchased and not
    /// revoked, of a non-consumable or auto-renewable subscription the catalog marks `familyShareable`.
    func isShareable(_ transaction: Transaction) -> Bool {
        transaction.ownershipType == .purchased && transaction.status == .purchased && transaction.revocationDate == nil
            && [.nonConsumable, .autoRenewable].contains(transaction.productType)
            && catalog.product(id: transaction.productID)?.familyShareable == true
    }

    /// `member`'s own transaction of `purchase`: its own id, `ownershipType` familyShared, signed for
    /// its account; a subscription's later periods continue the member's chain (its `originalID`).
    func share(_ purchase: Transaction, with member: String, at date: Date) throws -> Transaction {
        var copy = purchase
        (copy.id, copy.account, copy.ownershipType, copy.appAccountToken) = (0, member, .familyShared, nil)
        (copy.isFinished, copy.pendingReason, copy.verification) = (false, nil, .verified)
        if purchase.productType == .autoRenewable,
           let chain = try ledger.sharedChain(account: member, purchaseOriginalID: purchase.originalID) {
            (copy.originalID, copy.originalPurchaseDate) = chain
        } else {
            // The member's first transaction of it: its own original, dated as the purchase it shares.
            (copy.originalID, copy.originalPurchaseDate, copy.reason) = (0, purchase.purchaseDate, .purchase)
        }
        try ledger.ensureAccount(member, at: date)
        let stored = try ledger.insert(copy)
        try ledger.saveShare(stored.id, purchase: purchase.id)
        try ledger.log(.purchased, account: member, productID: purchase.productID, transactionID: stored.id,
                       detail: "shared by \(purchase.account) (Family Sharing, transaction \(purchase.id))", at: date)
        return stored
    }

    /// Shares what `purchaser` is entitled to now (its own shareable purchases) with a member who
    /// just joined, with the notification Apple sends that member for each.
    private func shareEntitlements(of purchaser: String, with member: String, at date: Date) throws -> [Transaction] {
        var shared: [Transaction] = []
        for purchase in try entitlements(at: date, account: purchaser) where isShareable(purchase) {
            let before = try ledger.sharedChain(account: member, purchaseOriginalID: purchase.originalID)
            let copy = try share(purchase, with: member, at: date)
            if purchase.productType == .autoRenewable {
                let record = try sharedRecords(account: member).first { $0.originalID == copy.originalID }
                try notify(.subscribed, before == nil ? .initialBuy : .resubscribe, transaction: copy, record: record,
                           account: member, at: date)
            } else {
                try notify(.oneTimeCharge, transaction: copy, account: member, at: date)
            }
            shared.append(copy)
        }
        return shared
    }

    /// Mirrors a purchaser's changed transaction (cut short, extended, upgraded) in its shares.
    func mirrorToFamily(_ purchaseID: Int64) throws {
        guard let purchase = try ledger.transaction(id: purchaseID), purchase.ownershipType == .purchased else { return }
        for var copy in try ledger.shares(of: purchaseID) where copy.revocationDate == nil {
            guard copy.expirationDate != purchase.expirationDate || copy.isUpgraded != purchase.isUpgraded else { continue }
            (copy.expirationDate, copy.isUpgraded) = (purchase.expirationDate, purchase.isUpgraded)
            _ = try ledger.update(copy)
        }
    }

    // MARK: - Revoking

    /// Revokes every share of a refunded purchase, with the purchaser's `revocationReason`, as Apple does.
    @discardableResult
    func revokeShares(of purchase: Transaction, reason: Transaction.RevocationReason, at date: Date) throws -> [Transaction] {
        try ledger.shares(of: purchase.id).filter { $0.revocationDate == nil }.map {
            try revokeShare($0, reason: reason, at: date, why: "\(purchase.account) was refunded (transaction \(purchase.id))")
        }
    }

    /// Revokes one member's shared transaction: `revocationDate` now, handed back to its app
    /// unfinished (an update), and Apple's REVOKE notification.
    func revokeShare(_ shared: Transaction, reason: Transaction.RevocationReason, at date: Date, why: String) throws -> Transaction {
        var copy = shared
        (copy.revocationDate, copy.revocationReason) = (date, reason)
        var stored = try ledger.update(copy)
        if shared.isFinished { try ledger.markUnfinished(shared.id) }
        stored = try ledger.transaction(id: shared.id) ?? stored
        try ledger.log(.revoked, account: shared.account, productID: shared.productID, transactionID: shared.id,
                       detail: "no longer shared by family: \(why) (\(reason.rawValue))", at: date)
        let record = shared.productType == .autoRenewable
            ? try sharedRecords(account: shared.account).first { $0.originalID == shared.originalID } : nil
        try notify(.revoke, transaction: stored, record: record, account: shared.account, at: date)
        return stored
    }

    // MARK: - Shared subscriptions

    /// The subscriptions `account` has through its family, each as its purchaser's record seen
    /// from the member's own chain (its `originalID`): their state follows the purchaser's.
    /// A chain whose newest period is not the purchaser's newest (the member left, or the
    /// family stopped sharing it) keeps no billing state and does not renew for the member.
    func sharedRecords(account: String) throws -> [SubscriptionRecord] {
        try ledger.latestSharedSubscriptions(account: account).compactMap { latest -> SubscriptionRecord? in
            guard let purchase = try ledger.sharedPurchase(of: latest.id),
                  var record = try ledger.subscriptionStates(account: purchase.account)
                      .first(where: { $0.originalID == purchase.originalID }) else { return nil }
            if try ledger.latestTransaction(originalID: purchase.originalID)?.id != purchase.id {
                (record.willAutoRenew, record.billingRetrySince, record.graceUntil, record.renewalOfferID) = (false, nil, nil, nil)
                record.expirationReason = record.expirationReason ?? .unknown
            }
            record.originalID = latest.originalID
            return record
        }
    }
}
