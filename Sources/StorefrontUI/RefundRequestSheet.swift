import StoreEngine

// The refund request sheet an app opens with `Transaction.beginRefundRequest` (b on the paywall's
// row or on the Transaction Manager's selected transaction; f there is the App Store's own refund):
// the customer picks a reason and submits. The App Store decides later — `storefront refund-request
// approve|decline ID` in another terminal — or at once, as the `refundRequestOutcome` setting says,
// and the decision reaches the screen like any other change: a granted refund as an update (the
// checkmark goes), a declined one as a note; meanwhile the rows say "Refund requested". The sheet
// says which before Submit, or why Submit fails: the engine's answer by the request's own checks
// (``AppFace/refundRequestPreview(transactionID:)``), asked when the sheet opens.

/// The reasons the sheet offers, as Apple's `consumptionRequestReason`, with the customer's words.
let refundRequestReasons: [(RefundRequestReason, String)] = [
    (.unintendedPurchase, "I didn't mean to buy it"),
    (.fulfillmentIssue, "It didn't arrive, or doesn't work"),
    (.unsatisfiedWithPurchase, "It isn't what I expected"),
    (.legal, "A legal reason"),
    (.other, "Another reason"),
]

/// The transaction a refund request from the paywall's row is about (the engine's rule).
func refundableTransaction(_ product: Product, _ state: State) -> Transaction? {
    state.snapshot?.refundableTransaction(of: product)
}

/// b on the paywall: the sheet for the selected product's purchase.
func requestRefundOnPaywall(_ state: inout State) {
    guard state.busy == nil, let product = state.selectedProduct else { return }
    guard let transaction = refundableTransaction(product, state) else {
        state.flash = "\(product.displayName): no purchase to ask a refund for (t lists every transaction)"
        return
    }
    openRefundRequest(&state, transaction)
}

/// The sheet for a transaction, the first reason chosen.
func openRefundRequest(_ state: inout State, _ transaction: Transaction) {
    state.flash = nil
    state.sheet = .refundRequest(transactionID: transaction.id, productID: transaction.productID, reason: refundRequestReasons[0].0)
}

/// Keys on the sheet: ↑ ↓ (← →) choose the reason, ⏎ submits it, Esc cancels (`userCancelled`).
func refundRequestKey(_ state: inout State, id: Int64, productID: String, reason: RefundRequestReason, _ key: Key) -> [Effect] {
    let at = refundRequestReasons.firstIndex { $0.0 == reason } ?? 0
    switch key {
    case .up, .down, .left, .right, .tab, .character("k"), .character("j"):
        let step = [Key.up, .left, .character("k")].contains(key) ? -1 : 1
        let next = refundRequestReasons[(at + step + refundRequestReasons.count) % refundRequestReasons.count].0
        state.sheet = .refundRequest(transactionID: id, productID: productID, reason: next)
    case .enter, .character("y"):
        state.sheet = nil
        return run(.requestRefund(id, reason: reason), &state)
    case .escape, .character("n"), .character("q"):
        state.sheet = nil
        state.flash = "Refund request for \(name(of: productID, in: state)) cancelled (userCancelled): nothing asked"
    default:
        break
    }
    return []
}

/// The sheet's lines: what it is about, the reasons with the chosen one marked.
func refundRequestContent(id: Int64, productID: String, reason: RefundRequestReason, _ state: State, inner: Int) -> SheetContent {
    let g = state.glyphs
    var body: [(String, Style)] = [("\(name(of: productID, in: state)) \(g.dot) transaction \(id)", bold)]
    body += wrap("Why do you want a refund? A refund reaches the app as an update (Transaction.beginRefundRequest).", inner)
        .map { ($0, .plain) }
    body.append(("", .plain))
    let width = refundRequestReasons.map { $0.0.rawValue.count }.max() ?? 0
    for (choice, words) in refundRequestReasons {
        let selected = choice == reason
        let text = "\(selected ? g.pointer : " ") \(choice.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))  \(words)"
        body.append((TerminalText.truncated(text, to: inner), selected ? Style(bold: true, reverse: true) : .plain))
    }
    body.append(("", .plain))
    // What Submit will do: the engine's answer, once it came.
    if let preview = state.refundRequestPrediction.answer(for: id) {
        body += wrap(TerminalText.sanitized(preview.sentence), inner).map { ($0, preview.fails ? Style(color: .red) : dim) }
    } else {
        body.append(("Submit: asking the App Store...", dim))
    }
    return SheetContent(title: "Request a Refund", body: body,
                        buttons: [("[ Submit \(g.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)])
}

/// After each action: the engine is asked what Submit would do when the sheet opens on a
/// transaction, and again after a load (a setting changed, the request made in another terminal).
func predictRefundRequest(_ state: inout State, after action: Action) -> [Effect] {
    let shown: Int64? = if case .refundRequest(let id, _, _)? = state.sheet { id } else { nil }
    return state.refundRequestPrediction.ask(about: shown, after: action).map { [.previewRefundRequest(transactionID: $0)] } ?? []
}

// MARK: - Rows and news


/// What the App Store decided since the last load, in words: "The App Store declined the refund request for Go Pro".
func refundRequestNews(from old: StoreSnapshot?, to new: StoreSnapshot, _ state: State) -> String? {
    guard let old else { return nil }
    let declined = new.refundRequests.values.filter { $0.status == .declined && old.refundRequests[$0.transactionID]?.status == .pending }
    guard !declined.isEmpty else { return nil }
    let names = declined.sorted { $0.transactionID < $1.transactionID }.map { request in
        productID(of: request.transactionID, in: new, state).map { name(of: $0, in: state) } ?? "transaction \(request.transactionID)"
    }
    return "The App Store declined the refund request for \(counted(names)) (REFUND_DECLINED)"
}

/// The product of a transaction the screen has read.
private func productID(of id: Int64, in snapshot: StoreSnapshot, _ state: State) -> String? {
    snapshot.owned.values.first { $0.id == id }?.productID
        ?? snapshot.subscriptions.values.first { $0.transaction.id == id }?.transaction.productID
        ?? snapshot.events.last { $0.transactionID == id }?.productID
        ?? state.manager.transactions?.first { $0.id == id }?.productID
}
