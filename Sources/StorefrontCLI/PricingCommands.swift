import Foundation
import StoreEngine
import StorefrontUI

/// `price-increase`: a subscription's price changes, and the customer's answer.
enum PriceIncreaseCommand: StorefrontCommand {
    /// `price-increase`: the price changes made and the increases this account waits for.
    case list
    /// `price-increase PRODUCT PRICE [--consent-required]`: a subscription's price changes, as in App Store Connect.
    case change(productID: String, price: Decimal, consentRequired: Bool)
    /// `price-increase consent|decline PRODUCT`: the customer's answer.
    case answer(productID: String, consent: Bool)

    static let consentRequired = Flag("--consent-required", "subscribers must agree to the new price, or their subscription ends")

    static var help: CommandHelp { PricingCommands.priceIncreaseHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let (args, consentRequired) = (line.args, line.has(consentRequired))
        if consentRequired, args.count != 2 || ["consent", "decline"].contains(args[0]) {
            throw UsageError(description: "price-increase takes --consent-required with PRODUCT_ID PRICE", command: line.name)
        }
        switch args.count {
        case 0: return .list
        case 2 where ["consent", "decline"].contains(args[0]) && !args[1].isEmpty:
            return .answer(productID: args[1], consent: args[0] == "consent")
        case 2 where !args[0].isEmpty:
            guard let price = DecimalText.parse(args[1]), price >= 0 else {
                throw UsageError(description: "price-increase needs a PRICE such as 5.99, not \"\(args[1])\"", command: line.name)
            }
            return .change(productID: args[0], price: price, consentRequired: consentRequired)
        default:
            throw UsageError(description: "price-increase takes nothing, PRODUCT_ID PRICE, consent PRODUCT_ID or decline PRODUCT_ID",
                             command: line.name)
        }
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .change(let productID, let price, let consent): try await session.priceIncrease(productID, price: price, consentRequired: consent)
        case .list: try await session.priceIncreases()
        case .answer(let productID, let consent): try await session.answerPriceIncrease(productID, consent: consent)
        }
    }
}

/// `messages [show ID | defer ID]`: the App Store's messages to the app.
enum MessagesCommand: StorefrontCommand {
    /// `messages`: the App Store's messages to the app (StoreKit's `Message.messages`).
    case list
    /// `messages show ID` / `messages defer ID`: the app shows a message now, or holds it.
    case show(id: Int64)
    case hold(id: Int64)

    static var help: CommandHelp { PricingCommands.messagesHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let args = line.args
        switch (args.first, args.count) {
        case (nil, _): return .list
        case ("show", 2), ("defer", 2):
            guard let id = Int64(args[1]), id > 0 else {
                throw UsageError(description: "messages \(args[0]) needs a message id (a whole number), not \"\(args[1])\"", command: line.name)
            }
            return args[0] == "show" ? .show(id: id) : .hold(id: id)
        default:
            throw UsageError(description: "messages takes nothing, show ID or defer ID", command: line.name)
        }
    }

    var needsCatalog: Bool {
        switch self {
        case .list, .show: true  // a message's sheet shows the catalog's prices and offers
        case .hold: false
        }
    }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .list: try await session.messages()
        case .show(let id): try await session.showMessage(id)
        case .hold(let id): try await session.deferMessage(id)
        }
    }
}

/// `message send REASON`: a tester queues a message.
struct MessageCommand: StorefrontCommand {
    var reason: MessageReason

    static var help: CommandHelp { PricingCommands.messageHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let args = line.args
        guard args.count == 2, args[0] == "send" else {
            throw UsageError(description: "message takes send REASON", command: line.name)
        }
        guard let reason = MessageReason(rawValue: args[1]) else {
            throw UsageError(description: "message send takes \(MessageReason.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(args[1])\"",
                             command: line.name)
        }
        return Self(reason: reason)
    }

    func run(in session: Session) async throws -> Report? { try await session.sendMessage(reason) }
}

/// Price increases and the App Store's messages: their command table entries and reports.
enum PricingCommands {
    static let priceIncreaseHelp = CommandHelp(
        name: "price-increase",
        usage: "price-increase [PRODUCT_ID PRICE [--consent-required] | consent PRODUCT_ID | decline PRODUCT_ID] [--json]",
        summary: "Change a subscription's price, as App Store Connect; a subscriber's consent or refusal",
        details: """
            Changes a subscription's price in the current storefront, as a developer does in App Store
            Connect, and plays a subscriber's answer to an increase.
              PRODUCT_ID PRICE     the price becomes PRICE (a decimal such as 5.99): new subscribers
                                   pay it at once. For a higher price every current subscriber of the
                                   plan is told now (PRICE_INCREASE ACCEPTED, or PENDING when they must
                                   agree, with a priceIncreaseConsent message) and pays it from the
                                   first renewal after Apple's notice: 27 days (30 for yearly plans; a
                                   free trial renews once more at its price). One who must agree and
                                   has not by then is not renewed: expired, didNotConsentToPriceIncrease
                                   (expirationIntent 3, EXPIRED PRICE_INCREASE). A lower price applies
                                   at the next renewals.
              --consent-required   subscribers must agree. Without it Apple's rules decide: more than
                                   50% and more than $5 a period ($50 a year for yearly plans), or a
                                   second increase without consent within a year, needs it.
              consent PRODUCT_ID   the account agrees (the consent sheet's Agree): priceIncreaseStatus
                                   1, PRICE_INCREASE ACCEPTED, it renews at the new price
              decline PRODUCT_ID   the account declines: as Xcode, it cancels (auto-renew off,
                                   AUTO_RENEW_DISABLED) and ends at the period's end
              (nothing)            the price changes made, and the increases this account waits for
            A subscription price that changed in the catalog file since the last run is made a price
            change the same way, once.
            """,
        options: [PriceIncreaseCommand.consentRequired.spec], operands: [.productID, .text])

    static let messagesHelp = CommandHelp(
        name: "messages", usage: "messages [show ID | defer ID] [--json]",
        summary: "The App Store's messages to the app, as StoreKit's Message.messages",
        details: """
            Lists the account's messages, oldest first, with their state: pending (StoreKit would show
            it at launch), deferred (the app holds it to show later), displayed. The App Store queues
            them when their event happens: billingIssue when a renewal fails to bill,
            priceIncreaseConsent when a price increase needs the account's consent, winBackOffer when
            the account becomes eligible for a win-back offer (once per lapse), generic from
            `message send`.
              show ID    the app displays it now (Message.display): prints the sheet a device shows
              defer ID   the app holds it to show later: it stays queued and comes again at the next launch
            """,
        operands: [.words(["show", "defer"]), .text])

    static let messageHelp = CommandHelp(
        name: "message", usage: "message send REASON [--json]",
        summary: "Queue a message to the app, as the App Store would send it",
        details: """
            Queues a message with Message.Reason REASON for the account: generic (a tester's usual
            choice), billingIssue, priceIncreaseConsent or winBackOffer. The app gets it from
            Message.messages, and `messages` lists it.
            """,
        operands: [.words(["send"]), .words(MessageReason.allCases.map(\.rawValue))])
}

// MARK: - Reports

extension PriceIncrease {
    var json: JSON {
        .object([
            "account": .string(account), "subscriptionGroupID": .string(groupID), "productID": .string(productID),
            "originalTransactionID": .integer(originalTransactionID), "storefront": .string(storefront),
            "oldPrice": .decimal(oldPrice), "newPrice": .decimal(newPrice), "consentRequired": .bool(requiresConsent),
            "priceIncreaseStatus": .string(status.rawValue), "notified": .date(notified), "noticeEnds": .date(noticeEnds),
            "effectiveDate": .date(effectiveDate),
        ])
    }
}

extension PriceChange {
    var json: JSON {
        .object([
            "id": .integer(id), "productID": .string(productID), "storefront": .string(storefront),
            "oldPrice": .decimal(oldPrice), "newPrice": .decimal(newPrice), "consentRequired": .bool(requiresConsent),
            "date": .date(date), "source": .string(source), "subscribers": .array(subscribers.map(\.json)),
        ])
    }
}

extension StoreMessage {
    var json: JSON {
        .object([
            "id": .integer(id), "reason": .string(reason.rawValue), "state": .string(state.rawValue),
            "productID": productID.map(JSON.string), "offerID": offerID.map(JSON.string), "date": .date(created),
        ])
    }
}

extension Session {
    func priceIncrease(_ productID: String, price: Decimal, consentRequired: Bool) async throws -> Report {
        let change = try await appStore.changePrice(productID, to: price, requireConsent: consentRequired)
        let storefront = try await app.storefront()
        let name = try await displayName(productID)
        var lines = ["\(name) now costs \(storefront.displayPrice(change.newPrice)) in \(change.storefront) (was \(storefront.displayPrice(change.oldPrice))); new subscribers pay it now."]
        guard change.isIncrease else {
            lines.append("A lower price: current subscribers pay it from their next renewal.")
            return Report(json: change.json, lines)
        }
        lines.append(change.requiresConsent
            ? "Consent required: each subscriber must agree before the renewal that charges it, or the subscription ends then."
            : "No consent required: subscribers are told, and pay it from the first renewal after the notice.")
        guard !change.subscribers.isEmpty else { return Report(json: change.json, lines + ["No current subscribers."]) }
        var table = Table("ACCOUNT", "STATUS", "NEW PRICE FROM")
        for subscriber in change.subscribers {
            table.add(TerminalText.sanitized(subscriber.account), subscriber.status == .pending ? "pending (consent asked)" : "agreed (told)",
                      subscriber.effectiveDate?.iso8601 ?? subscriber.noticeEnds.iso8601)
        }
        return Report(json: change.json, lines + [table.rendered])
    }

    func priceIncreases() async throws -> Report {
        let (changes, waiting) = try await appStore.priceIncreases()
        let json = JSON.object(["changes": .array(changes.map(\.json)), "waiting": .array(waiting.map(\.json))])
        var lines: [String] = []
        if changes.isEmpty {
            lines.append("No price changes: price-increase PRODUCT_ID PRICE makes one.")
        } else {
            var table = Table("DATE", "PRODUCT", "STOREFRONT", "FROM", "TO", "CONSENT", "SOURCE")
            for change in changes {
                table.add(change.date.iso8601, TerminalText.sanitized(change.productID), change.storefront,
                          PriceText.display(change.oldPrice, storefront: change.storefront),
                          PriceText.display(change.newPrice, storefront: change.storefront), change.requiresConsent ? "required" : "no", change.source)
            }
            lines.append(table.rendered)
        }
        for increase in waiting {
            let answer = increase.status == .pending ? "waits for consent (price-increase consent|decline \(increase.productID))" : "agreed"
            let price = increase.newPriceText(per: store.catalog.product(id: increase.productID)?.subscription?.period)
            let date = StatusText.shortDate(increase.effectiveDate ?? increase.noticeEnds)
            lines.append("\(TerminalText.sanitized(store.account)): \(try await displayName(increase.productID)) renews at \(price) from \(date); \(answer).")
        }
        return Report(json: json, lines)
    }

    func answerPriceIncrease(_ productID: String, consent: Bool) async throws -> Report {
        if consent {
            let (increase, reported) = try await appStore.consentToPriceIncreaseReporting(productID)
            return Report(reported, ["priceIncrease": increase.json])
        }
        return try await reported(try await appStore.declinePriceIncreaseReporting(productID), group: productID)
    }

    func messages() async throws -> Report {
        let messages = try await app.messages()
        let json = JSON.object(["messages": .array(messages.map(\.json))])
        guard !messages.isEmpty else { return Report(json: json, "No messages for \(TerminalText.sanitized(store.account)).") }
        var table = Table("ID", "REASON", "STATE", "PRODUCT", "OFFER", "DATE")
        for message in messages {
            table.add(String(message.id), message.reason.rawValue, message.state.rawValue, TerminalText.sanitized(message.productID ?? ""),
                      TerminalText.sanitized(message.offerID ?? ""), message.created.iso8601)
        }
        return Report(json: json, table.rendered)
    }

    func showMessage(_ id: Int64) async throws -> Report {
        let (message, sheet) = try await app.displayMessage(id)
        let json = JSON.object(["message": message.json,
                                "sheet": .object(["title": .string(sheet.title), "lines": .array(sheet.lines.map(JSON.string))])])
        return Report(json: json, ["[ \(TerminalText.sanitized(sheet.title)) ]"] + sheet.lines.map(TerminalText.sanitized))
    }

    func deferMessage(_ id: Int64) async throws -> Report {
        let message = try await app.deferMessage(id)
        let line = message.state == .displayed ? "Message \(id) was displayed already."
            : "Message \(id) (\(message.reason.rawValue)) deferred: the app shows it later; it comes again at the next launch."
        return Report(json: .object(["message": message.json]), line)
    }

    func sendMessage(_ reason: MessageReason) async throws -> Report {
        let message = try await testSession.sendMessage(reason)
        return Report(json: .object(["message": message.json]),
                      "Queued message \(message.id) (\(reason.rawValue)) for \(TerminalText.sanitized(store.account)).")
    }
}
