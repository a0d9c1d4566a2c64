import Foundation
import StoreEngine

// The Transaction Manager's detail pane (Enter or i on a row): everything the store knows of
// one transaction — what was charged and why, the dates, the request it answered, its signed
// payload decoded and checked, and the App Store Server Notifications recorded for it.

/// The open detail pane: which transaction, how far it is scrolled, and its notifications.
public struct TransactionDetailState: Equatable, Sendable {
    public var transactionID: Int64
    /// The notifications recorded for it, oldest first; nil while they load.
    public var notifications: [ServerNotification]?
    /// Why they could not be read.
    public var notificationsError: String?
    public var scroll = 0
    /// Long values continued on the rows below (w), rather than cut with "…".
    public var wrapsValues = false

    public init(transactionID: Int64) { self.transactionID = transactionID }
}

// MARK: - Keys

/// Opens the pane on the selected row and asks for its notifications.
func openDetail(_ state: inout State) -> [Effect] {
    guard let selected = state.manager.selected else { return [] }
    state.manager.detail = TransactionDetailState(transactionID: selected.id)
    return [.loadNotifications(transactionID: selected.id)] + historyEffects(selected)
}

/// Keys while the pane is open: Esc (or i, Enter) closes it, ↑ ↓ PgUp PgDn Home End scroll it,
/// w wraps long values or cuts them again.
/// Nil lets the key through: the screen keys and the actions on the transaction (a, f, e, …) still work.
func detailKey(_ state: inout State, _ key: Key) -> [Effect]? {
    guard state.manager.detail != nil else { return nil }
    let page = max(1, ManagerLayout(state.size).listHeight - 2)
    switch key {
    case .escape, .enter, .character("i"): state.manager.detail = nil
    case .up, .character("k"): scrollDetail(&state, by: -1)
    case .down, .character("j"): scrollDetail(&state, by: 1)
    case .pageUp: scrollDetail(&state, by: -page)
    case .pageDown: scrollDetail(&state, by: page)
    case .home, .character("g"): scrollDetail(&state, by: -Int.max / 2)
    case .end, .character("G"): scrollDetail(&state, by: Int.max / 2)
    case .character("w"):
        state.manager.detail?.wrapsValues.toggle()
        scrollDetail(&state, by: 0)
    default: return nil
    }
    return []
}

private func scrollDetail(_ state: inout State, by delta: Int) {
    guard var detail = state.manager.detail else { return }
    let lines = detailPaneRows(state, timeZone: .current).count
    let height = max(1, ManagerLayout(state.size).listHeight)
    detail.scroll = max(0, min(detail.scroll + delta, max(0, lines - height)))
    state.manager.detail = detail
}

/// The list was read again: the pane follows its transaction (and closes when it is gone).
func refreshDetail(_ state: inout State) -> [Effect] {
    guard let detail = state.manager.detail else { return [] }
    guard state.manager.transactions?.contains(where: { $0.id == detail.transactionID }) == true else {
        state.manager.detail = nil
        return []
    }
    let transaction = state.manager.transactions?.first { $0.id == detail.transactionID }
    return [.loadNotifications(transactionID: detail.transactionID)] + (transaction.map(historyEffects) ?? [])
}

/// A subscription's pane reads its group's history, for the timeline.
private func historyEffects(_ transaction: Transaction) -> [Effect] {
    guard transaction.productType == .autoRenewable, let group = transaction.subscriptionGroupID else { return [] }
    return [.loadSubscriptionHistory(groupID: group)]
}

// MARK: - Contents

/// One line of the pane: a label and its value, or a heading (empty value).
struct DetailLine: Equatable {
    var label: String
    var value: String
    var style: Style = .plain
}

extension ManagerState {
    /// The transaction the pane shows.
    var detailTransaction: Transaction? {
        detail.flatMap { detail in transactions?.first { $0.id == detail.transactionID } }
    }
}

/// The pane's lines, top to bottom.
func detailLines(_ state: State, timeZone: TimeZone) -> [DetailLine] {
    guard let detail = state.manager.detail, let tx = state.manager.detailTransaction else { return [] }
    let date = { (value: Date?) in value.map { shortDate($0, timeZone) } ?? "—" }
    var lines: [DetailLine] = []
    let price = tx.displayPrice  // in its own currency, as the engine writes every price
    lines.append(DetailLine(label: "Price", value: price + (tx.purchasedQuantity > 1 ? " × \(tx.purchasedQuantity)" : "")
                            + " (\(tx.storefront))"))
    let offer = tx.offerType.map { offer in
        [offer.rawValue, tx.offerID, tx.offerPaymentMode?.rawValue, tx.offerPeriod?.description].compactMap { $0 }
            .joined(separator: " · ")
    }
    lines.append(DetailLine(label: "Offer", value: offer ?? "none"))
    lines.append(DetailLine(label: "Reason", value: tx.reason.rawValue))
    lines.append(DetailLine(label: "Ownership", value: tx.ownershipType.rawValue))
    lines.append(DetailLine(label: "State", value: state.manager.facts(of: tx, state).state.text))
    lines.append(DetailLine(label: "Purchased", value: date(tx.purchaseDate)))
    lines.append(DetailLine(label: "Original", value: "\(date(tx.originalPurchaseDate)) (tx \(tx.originalID))"))
    lines.append(DetailLine(label: "Expires", value: date(tx.expirationDate)))
    lines.append(DetailLine(label: "Revoked", value: tx.revocationDate.map {
        date($0) + (tx.revocationReason.map { " (\($0.rawValue))" } ?? "")
    } ?? "—", style: tx.revocationDate == nil ? .plain : Style(color: .red)))
    lines.append(DetailLine(label: "Request", value: tx.pendingReason.map {
        $0 == .interrupted ? "interrupted purchase" : "Ask to Buy"
    } ?? "none", style: tx.status == .pending ? Style(color: .yellow) : .plain))
    switch tx.verification {
    case .verified where tx.jwsRepresentation != nil:
        lines.append(DetailLine(label: "Signature", value: "verified", style: Style(color: .green)))
    case .verified:
        lines.append(DetailLine(label: "Signature", value: "none (not signed until purchased)", style: dim))
    case .unverified(let reason):
        lines.append(DetailLine(label: "Signature", value: "unverified: \(reason)", style: Style(color: .red)))
    }

    lines.append(DetailLine(label: "Server notifications", value: "", style: Style(bold: true)))
    if let error = detail.notificationsError {
        lines.append(DetailLine(label: "", value: "cannot read them: \(error)", style: Style(color: .red)))
    } else if let notifications = detail.notifications {
        if notifications.isEmpty { lines.append(DetailLine(label: "", value: "none recorded", style: dim)) }
        for notification in notifications {
            let kind = notification.type + (notification.subtype.map { " (\($0))" } ?? "")
            let delivery: String, style: Style
            if notification.isDelivered {
                (delivery, style) = ("delivered", Style(color: .green))
            } else if let last = notification.attempts.last {
                (delivery, style) = ("\(last.result.rawValue) ×\(notification.attempts.count)", Style(color: .red))
            } else {
                (delivery, style) = ("waiting", dim)
            }
            lines.append(DetailLine(label: date(notification.signedDate), value: "\(kind) · \(delivery)", style: style))
        }
    } else {
        lines.append(DetailLine(label: "", value: "\(spinner(state)) loading…", style: dim))
    }

    lines.append(DetailLine(label: "Signed payload", value: "", style: Style(bold: true)))
    lines += payloadLines(tx.jwsRepresentation)
    return lines
}

/// The JWS payload's fields in signed order.
func payloadLines(_ jws: String?) -> [DetailLine] {
    guard let jws else { return [DetailLine(label: "", value: "none: a pending request carries no signature", style: dim)] }
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = Base64URL.decode(parts[1]), let payload = try? JSON.parse(bytes),
          case .object(let members) = payload else {
        return [DetailLine(label: "", value: "cannot be decoded", style: Style(color: .red))]
    }
    return members.map { member in
        // As signed: dates in milliseconds (the facts on the left read them), text unquoted.
        let value: String = switch member.value {
        case .string(let text): text
        case .number(let text): text
        default: member.value.serialized(pretty: false)
        }
        return DetailLine(label: member.key, value: value)
    }
}
