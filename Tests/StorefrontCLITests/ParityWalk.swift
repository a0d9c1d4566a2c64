import Foundation
import StoreEngine

// The generated parity walk's moves: what a tester can do through the engine's faces, drawn at
// random from a seed of our own, so that a walk that finds a disagreement can be replayed.

/// One thing a tester does. `pick` chooses among what exists when it runs (a transaction, a
/// request), so a walk with a step left out still runs (the walk's reduction leaves steps out).
enum WalkMove: Sendable, Hashable, CustomStringConvertible {
    case buy(String)
    case buyOutside(String)
    case askToBuy(String)
    case interrupt(String)
    case approve(pick: Int)
    case decline(pick: Int)
    case resolve(pick: Int)
    case promotionalOffer(String, offer: String)
    case winBack(String, offer: String)
    case redeem(String)
    case resetApp
    case newTester
    case restore
    case requestRefund(pick: Int)
    case answerRefundRequest(pick: Int, approve: Bool)
    case refund(pick: Int)
    case revoke(pick: Int)
    case familyShare
    case leaveFamily
    case advance(String)
    case setting(String, String)
    case autoRenew(Bool)
    case priceIncrease(String, consent: Bool)
    case answerPriceIncrease(String, agree: Bool)
    case expire
    case renew
    case consume
    case resolveBillingIssue

    /// The move as a tester would type it (the CLI's words, where there are some).
    var description: String {
        switch self {
        case .buy(let id): "buy \(id)"
        case .buyOutside(let id): "buy \(id) --outside"
        case .askToBuy(let id): "buy \(id) --outcome askToBuy"
        case .interrupt(let id): "buy \(id) --outcome interrupt"
        case .approve(let pick): "approve (pending request #\(pick))"
        case .decline(let pick): "decline (pending request #\(pick))"
        case .resolve(let pick): "resolve (pending request #\(pick))"
        case .promotionalOffer(let id, let offer): "buy \(id) --offer \(offer) --sign"
        case .winBack(let id, let offer): "buy \(id) --win-back \(offer)"
        case .redeem(let code): "redeem \(code)"
        case .resetApp: "reset app"
        case .newTester: "accounts switch (a new tester)"
        case .restore: "restore"
        case .requestRefund(let pick): "refund-request begin (transaction #\(pick))"
        case .answerRefundRequest(let pick, let approve): "refund-request \(approve ? "approve" : "decline") (request #\(pick))"
        case .refund(let pick): "refund (transaction #\(pick))"
        case .revoke(let pick): "refund --reason developerIssue (transaction #\(pick))"
        case .familyShare: "family: alice buys Go Pro and shares it with this account"
        case .leaveFamily: "family remove (this account)"
        case .advance(let duration): "clock advance \(duration)"
        case .setting(let name, let value): "settings set \(name) \(value)"
        case .autoRenew(let on): "auto-renew premium \(on ? "on" : "off")"
        case .priceIncrease(let id, let consent): "price-increase \(id) (+1)\(consent ? " --consent-required" : "")"
        case .answerPriceIncrease(let id, let agree): "price-increase \(agree ? "consent" : "decline") \(id)"
        case .expire: "expire premium"
        case .renew: "renew premium"
        case .consume: "consume coins"
        case .resolveBillingIssue: "resolve the billing issue"
        }
    }

    /// The catalog's products and offers, as the walk draws them.
    static let products = ["com.razeware.razefaces.swiftshopping", "com.razeware.razefaces.iphonerage",
                           "com.CephalopodStudio.PurchasePro.GoPro", "com.example.storefront.coins100",
                           "com.example.storefront.seasonpass", "barcode_month_subscription",
                           "barcode_year_subscription", "barcode_quarter_subscription"]
    static let subscriptions = ["barcode_month_subscription", "barcode_year_subscription", "barcode_quarter_subscription"]
    static let codes = ["FREE3A", "FREE3B", "FREE3C", "YEARFREE3"]
    static let settings: [(String, [String])] = [
        ("billingIssues", ["true", "false"]), ("gracePeriod", ["true", "false"]),
        ("canMakePayments", ["false", "true", "true"]), ("storefront", ["DEU", "USA", "GBR", "JPN"]),
        ("askToBuy", ["true", "false", "false"]), ("finishTransactions", ["false", "true", "true"]),
    ]

    /// A move drawn from `random`, buying more often than anything else.
    static func draw(_ random: inout SplitMix64) -> WalkMove {
        func one<T>(_ items: [T]) -> T { items[random.below(items.count)] }
        let pick = random.below(8)
        switch random.below(40) {
        case 0..<8: return .buy(one(products))
        case 8: return .buyOutside(one(products))
        case 9: return .askToBuy(one(products))
        case 10: return .interrupt(one(products))
        case 11: return .approve(pick: pick)
        case 12: return .decline(pick: pick)
        case 13: return .resolve(pick: pick)
        case 14: return .promotionalOffer("barcode_year_subscription", offer: "annual_comeback")
        case 15: return .winBack("barcode_month_subscription", offer: "monthly_winback")
        case 16: return .redeem(one(codes))
        case 17: return .resetApp
        case 18: return .newTester
        case 19: return .restore
        case 20: return .requestRefund(pick: pick)
        case 21: return .answerRefundRequest(pick: pick, approve: random.below(2) == 0)
        case 22: return .refund(pick: pick)
        case 23: return .revoke(pick: pick)
        case 24: return .familyShare
        case 25: return .leaveFamily
        case 26, 27: return .advance(one(["P1D", "P1W"]))
        case 28, 29: return .advance(one(["P1M", "P1Y", "P4M"]))
        case 30, 31, 32: let (name, values) = one(settings); return .setting(name, one(values))
        case 33: return .autoRenew(random.below(3) == 0)
        case 34: return .priceIncrease(one(subscriptions), consent: random.below(2) == 0)
        case 35: return .answerPriceIncrease(one(subscriptions), agree: random.below(2) == 0)
        case 36: return .expire
        case 37: return .renew
        case 38: return .consume
        default: return .resolveBillingIssue
        }
    }
}

/// A walk's store and what it acts as: the tester's account, which a new tester replaces.
struct WalkStore {
    var store: Store
    let path: String
    let catalog: Catalog
    let clock: @Sendable () -> Date

    /// Makes `move`; an action the engine refuses (an error a tester would see) changes nothing
    /// and is not a disagreement. Returns the refusal, if any.
    mutating func make(_ move: WalkMove) async -> String? {
        do {
            try await perform(move)
            return nil
        } catch {
            return "\(error)"
        }
    }

    private mutating func perform(_ move: WalkMove) async throws {
        let app = store.app, appStore = store.appStore, session = store.testSession
        switch move {
        case .buy(let id): _ = try await app.purchase(id)
        case .buyOutside(let id): _ = try await appStore.purchaseOutsideApp(id)
        case .askToBuy(let id): _ = try await app.purchase(id, choice: .askToBuy)
        case .interrupt(let id): _ = try await app.purchase(id, choice: .interrupt)
        case .approve(let pick): if let id = try await pending(pick) { try await appStore.approve(id) }
        case .decline(let pick): if let id = try await pending(pick) { try await appStore.decline(id) }
        case .resolve(let pick): if let id = try await pending(pick) { try await appStore.resolve(id) }
        case .promotionalOffer(let id, let offer):
            if try await appStore.offerKeys().isEmpty { _ = try await appStore.createOfferKey() }
            let signature = try await appStore.signPromotionalOffer(productID: id, offerID: offer)
            _ = try await app.purchase(id, offerID: offer, offerSignature: signature)
        case .winBack(let id, let offer): _ = try await app.purchase(id, winBackOfferID: offer)
        case .redeem(let code): _ = try await appStore.redeemOfferCode(code)
        case .resetApp: try await session.reset(.app)
        case .newTester: store = try await session.switchAccount(to: try await session.unusedTesterName())
        case .restore: _ = try await app.sync()
        case .requestRefund(let pick):
            if let id = try await purchase(pick) { try await app.beginRefundRequest(transactionID: id) }
        case .answerRefundRequest(let pick, let approve):
            let requests = try await appStore.refundRequests(status: .pending)
            guard !requests.isEmpty else { return }
            let id = requests[pick % requests.count].transactionID
            if approve { try await appStore.approveRefundRequest(id) } else { try await appStore.declineRefundRequest(id) }
        case .refund(let pick): if let id = try await purchase(pick) { try await appStore.refund(id) }
        case .revoke(let pick): if let id = try await purchase(pick) { try await appStore.refund(id, reason: .developerIssue) }
        case .familyShare:
            _ = try await session.createAccount("alice")
            if try await session.family(of: "alice") == nil { _ = try await session.createFamily("smiths", organizer: "alice") }
            let alice = try Store(catalog: catalog, path: path, account: "alice", now: clock)
            _ = try? await alice.app.purchase("com.CephalopodStudio.PurchasePro.GoPro")
            _ = try await session.addFamilyMember(store.account, to: "smiths")
        case .leaveFamily:
            if let family = try await session.family() { _ = try await session.removeFamilyMember(store.account, from: family.name) }
        case .advance(let duration): _ = try await session.advanceClock(by: ISODuration(duration)!)
        case .setting(let name, let value): _ = try await session.setSetting(name, to: value)
        case .autoRenew(let on): try await appStore.setAutoRenew(groupID: "premium", on)
        case .priceIncrease(let id, let consent):
            guard let product = try await app.product(id: id) else { return }
            _ = try await appStore.changePrice(id, to: product.price + 1, requireConsent: consent)
        case .answerPriceIncrease(let id, let agree):
            if agree { try await appStore.consentToPriceIncrease(id) } else { try await appStore.declinePriceIncrease(id) }
        case .expire: try await appStore.expireSubscription(groupID: "premium")
        case .renew: try await appStore.renewSubscription(groupID: "premium")
        case .consume: try await app.consume("com.example.storefront.coins100")
        case .resolveBillingIssue:
            if let status = try await appStore.subscriptionStatuses().first {
                try await appStore.resolveBillingIssue(transactionID: status.transaction.id)
            }
        }
    }

    /// The `pick`th request waiting, if any wait.
    private func pending(_ pick: Int) async throws -> Int64? {
        let requests = try await store.appStore.pendingRequests()
        return requests.isEmpty ? nil : requests[pick % requests.count].id
    }

    /// The `pick`th purchased transaction of the account, if it has any.
    private func purchase(_ pick: Int) async throws -> Int64? {
        let transactions = try await store.appStore.transactions().filter { $0.status == .purchased }
        return transactions.isEmpty ? nil : transactions[pick % transactions.count].id
    }
}
