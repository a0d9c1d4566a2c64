import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

// Whole screens at the two sizes a tester's terminal most often has, pinned as golden files
// (Goldens/<screen>-<columns>x<rows>.txt): any change to what a screen shows fails here with the
// lines that moved. After a change meant to be seen, write them again and read the diff:
//
//     STOREFRONT_UPDATE_GOLDENS=1 swift test --skip-build --filter GoldenScreenTests
//
// Every date comes from `fixedDate` and the screen is drawn in UTC, so the files never depend on
// when or where the tests run.

/// The sizes every golden screen is drawn at.
private let goldenSizes = [Size(columns: 80, rows: 24), Size(columns: 120, rows: 40)]

/// The folder of the golden files, beside this file.
private let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")

/// Whether the run rewrites the golden files instead of comparing with them.
private let updatingGoldens = ProcessInfo.processInfo.environment["STOREFRONT_UPDATE_GOLDENS"] == "1"

/// Compares the canvas `state` renders with the golden file `name` at the state's size.
func assertGolden(_ name: String, _ state: State, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let file = goldenFolder.appendingPathComponent("\(name)-\(state.size.columns)x\(state.size.rows).txt")
    let canvas = render(state, timeZone: utc)
    #expect(canvas.width == state.size.columns && canvas.height == state.size.rows, sourceLocation: sourceLocation)
    let actual = canvas.lines
    if updatingGoldens {
        try FileManager.default.createDirectory(at: goldenFolder, withIntermediateDirectories: true)
        try (actual.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        return
    }
    guard let text = try? String(contentsOf: file, encoding: .utf8) else {
        Issue.record("no golden file \(file.lastPathComponent): write it with STOREFRONT_UPDATE_GOLDENS=1", sourceLocation: sourceLocation)
        return
    }
    let golden = text.hasSuffix("\n") ? Array(text.dropLast().components(separatedBy: "\n")) : text.components(separatedBy: "\n")
    guard golden != actual else { return }
    Issue.record(Comment(rawValue: "\(file.lastPathComponent) differs (− golden, + rendered; STOREFRONT_UPDATE_GOLDENS=1 "
                                   + "writes it again):\n" + goldenDiff(golden, actual)), sourceLocation: sourceLocation)
}

/// The lines that differ, numbered from 1, each as − golden / + rendered.
func goldenDiff(_ golden: [String], _ actual: [String]) -> String {
    (0..<max(golden.count, actual.count)).compactMap { row -> String? in
        let (a, b) = (row < golden.count ? golden[row] : nil, row < actual.count ? actual[row] : nil)
        guard a != b else { return nil }
        return String(format: "%3d", row + 1) + " − \(a.map { "|\($0)|" } ?? "(none)")\n    + \(b.map { "|\($0)|" } ?? "(none)")"
    }.joined(separator: "\n")
}

// MARK: - The screens

/// The demo store with something owned of each kind, a subscription renewing, and a log.
private func goldenSnapshot() -> StoreSnapshot {
    let owned = [purchase(swiftShopping),
                 purchase(monthly, id: 2_000_000_002, expires: fixedDate.addingTimeInterval(86_400 * 30))]
    let events = [
        TransactionEvent(id: 1, date: fixedDate.addingTimeInterval(50_531), account: Store.defaultAccount, state: .purchasing,
                         productID: swiftShopping, transactionID: nil, detail: ""),
        TransactionEvent(id: 2, date: fixedDate.addingTimeInterval(50_531), account: Store.defaultAccount, state: .purchased,
                         productID: swiftShopping, transactionID: 2_000_000_001, detail: ""),
    ]
    var snapshot = snapshot(owned: owned, balances: [coins: 300], events: events)
    snapshot.storeTime = fixedDate.addingTimeInterval(50_600)
    return snapshot
}

private func paywall(_ size: Size) -> State {
    var state = loadedState(columns: size.columns, rows: size.rows, snapshot: goldenSnapshot())
    send(&state, .paywall(.select(index(of: iPhoneRage))), expecting: [])
    return state
}

@Suite("render, whole-screen goldens")
struct GoldenScreenTests {
    @Test("the paywall: products in their groups, checkmarks, prices, statuses, the log", arguments: goldenSizes)
    func paywallScreen(size: Size) throws {
        try assertGolden("paywall", paywall(size))
    }

    @Test("the App Store's confirmation sheet over the paywall", arguments: goldenSizes)
    func confirmationSheet(size: Size) throws {
        var state = paywall(size)
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .confirm(productID: iPhoneRage))
        try assertGolden("confirm-sheet", state)
    }

    @Test("the Transaction Manager with the detail pane open", arguments: goldenSizes)
    func transactionManager(size: Size) throws {
        var state = loadedState(on: .transactions, columns: size.columns, rows: size.rows, snapshot: goldenSnapshot())
        #expect(update(&state, .manager(.historyLoaded(history))).isEmpty)
        #expect(update(&state, .key(.down)).isEmpty)
        try assertGolden("manager", state)
        // The interrupted purchase: fixtures are not signed, and a pending request carries no signature.
        let interrupted: Int64 = 2_000_000_005
        #expect(update(&state, .key(.enter)) == [.loadNotifications(transactionID: interrupted)])
        #expect(update(&state, .manager(.notificationsLoaded(transactionID: interrupted, []))).isEmpty)
        try assertGolden("manager-detail", state)
    }

    @Test("the settings screen", arguments: goldenSizes)
    func settingsScreen(size: Size) throws {
        var state = loadedState(on: .settings, columns: size.columns, rows: size.rows, snapshot: goldenSnapshot())
        #expect(update(&state, .settings(.loaded(settingRows(["askToBuy": "true", "purchaseError": "networkError"],
                                                             once: ["purchaseError"]),
                                                 accounts: [Store.defaultAccount, "second@local"]))).isEmpty)
        #expect(update(&state, .key(.down)).isEmpty)
        try assertGolden("settings", state)
    }

    @Test("the help sheet over the paywall", arguments: goldenSizes)
    func helpSheet(size: Size) throws {
        var state = paywall(size)
        #expect(update(&state, .key(.character("?"))).isEmpty)
        #expect(state.sheet == .help)
        try assertGolden("help", state)
    }

    // MARK: The other sheets, each opened as a tester opens it (the effects checked on the way)

    @Test("You've already purchased this: Get It Free", arguments: goldenSizes)
    func alreadyOwnedSheet(size: Size) throws {
        var state = paywall(size)
        #expect(update(&state, .paywall(.select(index(of: swiftShopping)))).isEmpty)
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .alreadyOwned(productID: swiftShopping))
        try assertGolden("sheet-already-owned", state)
    }

    @Test("a failed purchase's alert", arguments: goldenSizes)
    func alertSheet(size: Size) throws {
        var state = paywall(size)
        let failure = PurchaseReport.failed(name: "networkError", domain: "StoreKitError", message: "The network is unavailable.")
        #expect(update(&state, .paywall(.purchased(productID: iPhoneRage, failure))) == [.load])
        guard case .alert? = state.sheet else { Issue.record("\(String(describing: state.sheet))"); return }
        try assertGolden("sheet-alert", state)
    }

    @Test("Quit?, after Esc on the paywall", arguments: goldenSizes)
    func confirmQuitSheet(size: Size) throws {
        var state = paywall(size)
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.sheet == .confirmQuit)
        try assertGolden("sheet-confirm-quit", state)
    }

    @Test("Redeem Code, a code typed", arguments: goldenSizes)
    func redeemCodeSheet(size: Size) throws {
        var state = paywall(size)
        #expect(update(&state, .key(.character("o"))).isEmpty)
        for character in "FREE3A" { #expect(update(&state, .key(.character(character))).isEmpty) }
        #expect(state.sheet == .redeemCode(code: "FREE3A"))
        try assertGolden("sheet-redeem-code", state)
    }

    @Test("the app's messages (m), one waiting", arguments: goldenSizes)
    func messagesSheet(size: Size) throws {
        var state = paywall(size)
        state.messages.policy = .deferred
        var snapshot = goldenSnapshot()
        snapshot.messages = [StoreMessage(id: 7, account: Store.defaultAccount, reason: .billingIssue, productID: monthly,
                                          offerID: nil, created: fixedDate, state: .pending)]
        #expect(update(&state, .loaded(snapshot)) == [.deferMessage(7)])
        #expect(update(&state, .key(.character("m"))).isEmpty)
        #expect(state.sheet == .messages(selection: 0))
        try assertGolden("sheet-messages", state)
    }

    @Test("a Billing Problem message, shown when it arrives", arguments: goldenSizes)
    func messageSheet(size: Size) throws {
        var state = paywall(size)
        var snapshot = goldenSnapshot()
        snapshot.messages = [StoreMessage(id: 7, account: Store.defaultAccount, reason: .billingIssue, productID: monthly,
                                          offerID: nil, created: fixedDate, state: .pending)]
        #expect(update(&state, .loaded(snapshot)) == [.displayMessage(7)])
        guard case .message? = state.sheet else { Issue.record("\(String(describing: state.sheet))"); return }
        try assertGolden("sheet-message", state)
    }

    @Test("the price increase consent sheet", arguments: goldenSizes)
    func priceIncreaseSheet(size: Size) throws {
        var state = paywall(size)
        var snapshot = goldenSnapshot()
        let renewal = fixedDate.addingTimeInterval(30 * 86_400)
        snapshot.priceIncreases = [PriceIncrease(
            account: Store.defaultAccount, groupID: "premium", originalTransactionID: 2_000_000_002, changeID: 1, productID: monthly,
            storefront: "USA", oldPrice: Decimal(string: "4.99")!, newPrice: Decimal(string: "9.99")!, requiresConsent: true,
            notified: fixedDate, noticeEnds: fixedDate.addingTimeInterval(27 * 86_400), status: .pending, effectiveDate: renewal)]
        snapshot.messages = [StoreMessage(id: 8, account: Store.defaultAccount, reason: .priceIncreaseConsent, productID: monthly,
                                          offerID: nil, created: fixedDate, state: .pending)]
        #expect(update(&state, .loaded(snapshot)) == [.displayMessage(8)])
        #expect(state.sheet == .priceIncrease(productID: monthly))
        try assertGolden("sheet-price-increase", state)
    }

    @Test("the app's refund request (b): the reasons, and what Submit does as the engine answered", arguments: goldenSizes)
    func refundRequestSheet(size: Size) throws {
        var state = paywall(size)
        #expect(update(&state, .paywall(.select(index(of: swiftShopping)))).isEmpty)
        guard let id = state.snapshot?.owned[swiftShopping]?.id else { Issue.record("no purchase"); return }
        #expect(update(&state, .key(.character("b"))) == [.previewRefundRequest(transactionID: id)])
        guard case .refundRequest? = state.sheet else { Issue.record("\(String(describing: state.sheet))"); return }
        #expect(update(&state, .sheet(.refundRequestPreviewed(transactionID: id, .requested(transactionID: id, status: .pending)))).isEmpty)
        try assertGolden("sheet-refund-request", state)
    }

    /// The Transaction Manager with the monthly plan's purchase selected.
    private func manager(_ size: Size) -> State {
        var state = loadedState(on: .transactions, columns: size.columns, rows: size.rows, snapshot: goldenSnapshot())
        #expect(update(&state, .manager(.historyLoaded(history))).isEmpty)
        state.manager.selection = 2
        return state
    }

    @Test("the manager's refund: the reason", arguments: goldenSizes)
    func refundSheet(size: Size) throws {
        var state = manager(size)
        #expect(update(&state, .key(.character("f"))).isEmpty)
        #expect(state.sheet == .refund(id: 2_000_000_004, reason: .other))
        try assertGolden("sheet-refund", state)
    }

    @Test("the manager's delete: Are You Sure?", arguments: goldenSizes)
    func confirmCommandSheet(size: Size) throws {
        var state = manager(size)
        #expect(update(&state, .key(.character("x"))).isEmpty)
        #expect(state.sheet == .confirmCommand(.delete(2_000_000_004)))
        try assertGolden("sheet-confirm-command", state)
    }

    @Test("the manager's purchase from outside the app: the product list", arguments: goldenSizes)
    func outsidePurchaseSheet(size: Size) throws {
        var state = manager(size)
        #expect(update(&state, .key(.character("o"))).isEmpty)
        #expect(update(&state, .key(.down)).isEmpty)
        #expect(state.sheet == .outsidePurchase(selection: 1))
        try assertGolden("sheet-outside-purchase", state)
    }
}
