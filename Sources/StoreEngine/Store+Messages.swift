import Foundation

extension Store {
    /// The account's messages, oldest first, after queueing what is due: renewals first (a billing
    /// problem), then a win-back offer the account became eligible for.
    func messages() throws -> [StoreMessage] {
        try processRenewals(onlyAccount: account)
        let date = try currentTime()
        try queueWinBackMessages(at: date)
        return try ledger.messages(account: account)
    }

    /// The app shows a message now (`Message.display(in:)`): its sheet. It is displayed from then on.
    func displayMessage(_ id: Int64) throws -> (message: StoreMessage, sheet: MessageSheet) {
        try ledger.write {
            guard var message = try ledger.message(id: id, account: account) else { throw StoreError.messageNotFound(id: id) }
            try ledger.setMessageState(id: id, .displayed)
            message.state = .displayed
            return (message, try sheet(for: message))
        }
    }

    /// The app holds a message to show later: it stays queued, and comes again at the next launch.
    func deferMessage(_ id: Int64) throws -> StoreMessage {
        try ledger.write {
            guard var message = try ledger.message(id: id, account: account) else { throw StoreError.messageNotFound(id: id) }
            guard message.state != .displayed else { return message }
            try ledger.setMessageState(id: id, .deferred)
            message.state = .deferred
            return message
        }
    }

    /// Queues a message of `reason`, as the App Store would send it (a tester's `message send`).
    func sendMessage(_ reason: MessageReason, productID: String? = nil) throws -> StoreMessage {
        let date = try currentTime()
        return try ledger.write {
            try ledger.ensureAccount(account, at: date)
            let id = try ledger.queueMessage(account: account, reason: reason, productID: productID, at: date) ?? 0
            guard let message = try ledger.message(id: id, account: account) else { throw StoreError.messageNotFound(id: id) }
            return message
        }
    }

    /// The sheet a device shows for a message, in the storefront's words and prices.
    func sheet(for message: StoreMessage) throws -> MessageSheet {
        let storefront = try storefront()
        let item = message.productID.flatMap(catalog.product(id:))
        let name = item.map { catalog.product(from: $0, in: storefront).displayName } ?? message.productID ?? "your subscription"
        switch message.reason {
        case .generic:
            return MessageSheet(title: "App Store", lines: ["A message from the App Store."])
        case .billingIssue:
            return MessageSheet(title: "Billing Problem", lines: [
                "There is a problem with your payment method for \(name).",
                "Update it to keep your subscription (settings set billingIssues false).",
            ])
        case .priceIncreaseConsent:
            guard let item, let terms = item.subscription,
                  let found = try ledger.priceIncrease(account: account, groupID: terms.groupID), found.productID == item.id
            else { return MessageSheet(title: "Subscription Price Increase", lines: ["The price of \(name) is increasing."]) }
            let increase = try withEffectiveDate(found)
            let when = (increase.effectiveDate ?? increase.noticeEnds).formatted(.iso8601)
            return MessageSheet(title: "Subscription Price Increase", lines: [
                "\(name) renews every \(terms.period.spelledOut) at \(storefront.displayPrice(increase.newPrice)) instead of \(storefront.displayPrice(increase.oldPrice)), from \(when).",
                increase.status == .agreed ? "You agreed to the new price."
                    : "If you do not agree, it ends then (price-increase consent|decline \(item.id)).",
            ])
        case .winBackOffer:
            let offer = item?.subscription?.offers.first { $0.kind == .winBack && $0.id == message.offerID }
            let terms = offer.map { offer -> String in
                let price = offer.price.map(storefront.displayPrice) ?? storefront.displayPrice(0)
                let length = (offer.period ?? item?.subscription?.period).map(\.spelledOut) ?? ""
                return switch offer.paymentMode ?? .payAsYouGo {
                case .freeTrial: "\(length) free"
                case .payUpFront: "\(length) for \(price)"
                case .payAsYouGo: "\(price) a \(length) for \(offer.periodCount) \(offer.periodCount == 1 ? "period" : "periods")"
                }
            }
            return MessageSheet(title: "Come back to \(name)", lines: [
                "Resubscribe with the offer \(message.offerID ?? ""): \(terms ?? "a special price").",
                "buy \(message.productID ?? "") --win-back \(message.offerID ?? "")",
            ])
        }
    }
}
