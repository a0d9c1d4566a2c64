import StoreEngine
import Testing
@testable import StorefrontUI

// The paywall's flows and every sheet's open, confirm and cancel, compared as whole states: each
// step names every field it changes and the exact effects (see `assertUpdate`).

/// The Transaction Manager with one purchase of Swift Shopping listed.
private func managerWithPurchase(id: Int64 = 2_000_000_001) -> State {
    var state = loadedState(on: .transactions)
    let effects = update(&state, .manager(.historyLoaded([transaction(swiftShopping, id: id)])))
    precondition(effects.isEmpty)
    return state
}

@Suite("update, whole State: paywall flows")
struct PaywallWholeStateTests {
    @Test("buy: the sheet, the purchase with the spinner, then the note and a load")
    func buy() {
        var state = loadedState()
        let row = index(of: swiftShopping)
        assertUpdate(&state, .paywall(.select(row))) { $0.selection = row }
        assertUpdate(&state, .key(.enter)) { $0.sheet = .confirm(productID: swiftShopping) }
        assertUpdate(&state, .key(.enter), effects: [.purchase(productID: swiftShopping)]) {
            $0.sheet = nil
            $0.busy = .purchasing(productID: swiftShopping)
        }
        assertUpdate(&state, .paywall(.purchased(productID: swiftShopping, bought(.purchased(purchase(swiftShopping, id: 7), change: nil), swiftShopping))),
                     effects: [.load]) {
            $0.busy = nil
            $0.flash = "Purchased Swift Shopping for $0.99 (transaction 7)."
        }
    }

    @Test("buy with an outcome chosen on the sheet: o steps it, Enter buys with it")
    func buyWithOutcome() {
        var state = loadedState()
        let id = state.products[0].id
        assertUpdate(&state, .key(.enter)) { $0.sheet = .confirm(productID: id) }
        assertUpdate(&state, .key(.character("o"))) { $0.sheet = .confirm(productID: id, outcome: .succeed) }
        assertUpdate(&state, .sheet(.confirm(.character("o")))) { $0.sheet = .confirm(productID: id, outcome: .cancel) }
        assertUpdate(&state, .key(.enter), effects: [.purchase(productID: id, outcome: .cancel)]) {
            $0.sheet = nil
            $0.busy = .purchasing(productID: id)
        }
    }

    @Test("cancel: Esc on the sheet buys with userCancelled; the note says so, with no alert")
    func cancel() {
        var state = loadedState()
        let product = state.products[0]
        assertUpdate(&state, .key(.enter)) { $0.sheet = .confirm(productID: product.id) }
        assertUpdate(&state, .key(.escape), effects: [.purchase(productID: product.id, outcome: .cancel)]) {
            $0.sheet = nil
            $0.busy = .purchasing(productID: product.id)
        }
        assertUpdate(&state, .paywall(.purchased(productID: product.id, bought(.userCancelled, product.id))), effects: [.load]) {
            $0.busy = nil
            $0.flash = "The purchase of \(product.displayName) was cancelled (userCancelled)."
        }
    }

    @Test("already owned: the sheet, then a free restore of it; Esc says nothing was restored")
    func alreadyOwned() {
        var state = loadedState(snapshot: snapshot(owned: [purchase(swiftShopping)]))
        let row = index(of: swiftShopping)
        assertUpdate(&state, .click(.buy(row))) {
            $0.selection = row
            $0.sheet = .alreadyOwned(productID: swiftShopping)
        }
        assertUpdate(&state, .key(.character("y")), effects: [.purchase(productID: swiftShopping)]) {
            $0.sheet = nil
            $0.busy = .purchasing(productID: swiftShopping)
        }
        assertUpdate(&state, .paywall(.purchased(productID: swiftShopping, bought(.alreadyOwned(purchase(swiftShopping)), swiftShopping))),
                     effects: [.load]) {
            $0.busy = nil
            $0.flash = "Restored Swift Shopping for free: the account owns it already (transaction 2000000001)."
        }
        assertUpdate(&state, .click(.buy(row))) {
            $0.sheet = .alreadyOwned(productID: swiftShopping)
            $0.flash = nil
        }
        // Issue 40's small items: Esc closed the sheet and said nothing, unlike the other sheets' Esc.
        assertUpdate(&state, .key(.escape)) {
            $0.sheet = nil
            $0.flash = "Get It Free of Swift Shopping cancelled: nothing restored"
        }
    }

    @Test("a purchase pending Ask to Buy ends in an alert; Enter dismisses it")
    func pending() {
        var state = loadedState()
        let reason = StoreEngine.Transaction.PendingReason.askToBuy
        let request = pendingRequest(swiftShopping, reason: reason)
        let message = reason.sentence(for: "Swift Shopping")
            + " Request 2000000009: storefront --store /tmp/store.sqlite approve 2000000009 (or decline 2000000009)."
            + " In the Transaction Manager: t, then a."
        assertUpdate(&state, .paywall(.purchased(productID: swiftShopping, bought(.pending(request), swiftShopping))), effects: [.load]) {
            $0.sheet = .alert(title: "Purchase Pending", message: message)
            $0.manager.focus = request.id
        }
        assertUpdate(&state, .sheet(.alert(.enter))) { $0.sheet = nil }
    }

    @Test("restore: the spinner, no second restore meanwhile, then the count and a load")
    func restore() {
        var state = loadedState()
        assertUpdate(&state, .key(.character("r")), effects: [.restore]) { $0.busy = .restoring }
        assertUpdate(&state, .key(.character("r")))  // no second restore while one runs
        assertUpdate(&state, .click(.restore))
        assertUpdate(&state, .paywall(.restored(count: 3)), effects: [.load]) {
            $0.busy = nil
            $0.flash = "Restored 3 purchases."
        }
        assertUpdate(&state, .paywall(.restored(count: 1)), effects: [.load]) { $0.flash = "Restored 1 purchase." }
    }

    @Test("a failed restore is an alert, and the store is read again")
    func restoreFailed() {
        var state = loadedState()
        assertUpdate(&state, .paywall(.restore), effects: [.restore]) { $0.busy = .restoring }
        assertUpdate(&state, .paywall(.restoreFailed("The network connection was lost.")), effects: [.load]) {
            $0.busy = nil
            $0.sheet = .alert(title: "Restore Failed", message: "The network connection was lost.")
        }
    }

    @Test("navigation: the cursor, the screens and what each reads, back to the paywall")
    func navigation() {
        var state = loadedState()
        assertUpdate(&state, .key(.down)) { $0.selection = 1 }
        assertUpdate(&state, .key(.character("k"))) { $0.selection = 0 }
        assertUpdate(&state, .key(.up))
        assertUpdate(&state, .key(.character("t")), effects: [.loadHistory]) { $0.screen = .transactions }
        assertUpdate(&state, .manager(.historyLoaded([transaction(swiftShopping, id: 9)]))) {
            $0.manager.transactions = [transaction(swiftShopping, id: 9)]
        }
        assertUpdate(&state, .key(.character("s")), effects: [.loadSettings]) { $0.screen = .settings }
        assertUpdate(&state, .key(.escape)) { $0.screen = .paywall }
        assertUpdate(&state, .click(.screen(.settings)), effects: [.loadSettings]) { $0.screen = .settings }
        assertUpdate(&state, .key(.character("p"))) { $0.screen = .paywall }
        assertUpdate(&state, .key(.character("l"))) { $0.showLog = false }
        assertUpdate(&state, .key(.character("q"))) { $0.isRunning = false }
    }

    @Test("+ advances the store's clock a day from any screen, as a store command")
    func advanceClock() {
        var state = loadedState(on: .transactions)
        let command = StoreCommand.advanceClock(ISODuration(days: 1))
        assertUpdate(&state, .key(.character("+")), effects: [.run(command)]) {
            $0.busy = .working(command.progress)
            $0.inFlight = command
        }
        assertUpdate(&state, .commandFinished(command, .success("Clock advanced by 1 day")), effects: [.load, .loadHistory]) {
            $0.busy = nil
            $0.inFlight = nil
            $0.flash = "Clock advanced by 1 day"
        }
    }

    @Test("keys route to the scoped action they stand for")
    func routing() {
        let paywall = loadedState()
        #expect(route(.enter, paywall) == .paywall(.buy))
        #expect(route(.character("r"), paywall) == .paywall(.restore))
        #expect(route(.character("/"), paywall) == .paywall(.search(.character("/"))))
        #expect(route(.character("t"), paywall) == .show(.transactions))
        #expect(route(.escape, paywall) == .paywall(.askToQuit))
        #expect(route(.character("x"), paywall) == .paywall(.managerKeyHint("x")), "said where it works")
        #expect(route(.character("z"), paywall) == nil)
        var sheet = paywall
        sheet.sheet = .help
        #expect(route(.character("t"), sheet) == .sheet(.help(.character("t"))), "an open sheet takes every key")
        #expect(route(.confirm, sheet) == .sheet(.help(.enter)))
        #expect(route(.product(2), sheet) == nil, "under a sheet the table does not answer")
        let manager = managerWithPurchase()
        #expect(route(.character("a"), manager) == .manager(.approve))
        #expect(route(.escape, manager) == .show(.paywall))
        var detail = manager
        send(&detail, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_001)])
        #expect(route(.escape, detail) == .manager(.detail(.escape)), "the open pane takes Esc before the screen switch")
        #expect(route(.character("f"), detail) == .manager(.refund), "keys the pane lets through act on its transaction")
        #expect(route(.right, loadedState(on: .settings)) == .settings(.change(by: 1)))
    }
}

@Suite("update, whole State: sheets")
struct SheetWholeStateTests {
    @Test("Quit Storefront?: Esc opens it and closes it; Enter stays (Esc then Enter never quits); q or y quits")
    func confirmQuit() {
        var state = loadedState()
        assertUpdate(&state, .key(.escape)) { $0.sheet = .confirmQuit }
        assertUpdate(&state, .key(.escape)) { $0.sheet = nil }
        assertUpdate(&state, .paywall(.askToQuit)) { $0.sheet = .confirmQuit }
        assertUpdate(&state, .key(.enter)) { $0.sheet = nil }
        assertUpdate(&state, .key(.escape)) { $0.sheet = .confirmQuit }
        assertUpdate(&state, .key(.character("y"))) {
            $0.sheet = nil
            $0.isRunning = false
        }
        var clicked = loadedState()
        assertUpdate(&clicked, .key(.escape)) { $0.sheet = .confirmQuit }
        // The sheet's [ Quit q ] button: a click quits, as q does.
        #expect(route(.sheetKey("q"), clicked) == .sheet(.confirmQuit(.character("q"))))
        assertUpdate(&clicked, .sheet(.confirmQuit(.character("q")))) {
            $0.sheet = nil
            $0.isRunning = false
        }
    }

    @Test("help: ? opens it at the top, ↓ scrolls, Esc closes")
    func help() {
        var state = loadedState()
        assertUpdate(&state, .key(.character("?"))) { $0.sheet = .help }
        assertUpdate(&state, .key(.down)) { $0.helpScroll = 1 }
        assertUpdate(&state, .key(.escape)) { $0.sheet = nil }
        assertUpdate(&state, .key(.character("h"))) {
            $0.sheet = .help
            $0.helpScroll = 0
        }
        assertUpdate(&state, .sheet(.help(.enter))) { $0.sheet = nil }
    }

    @Test("an alert: opened by a failure, closed by Enter or Esc, deaf to other keys")
    func alert() {
        var state = loadedState()
        assertUpdate(&state, .paywall(.consumeFailed("disk full"))) { $0.sheet = .alert(title: "Cannot Consume", message: "disk full") }
        assertUpdate(&state, .key(.character("r")))
        assertUpdate(&state, .key(.enter)) { $0.sheet = nil }
        assertUpdate(&state, .paywall(.consumeFailed("disk full"))) { $0.sheet = .alert(title: "Cannot Consume", message: "disk full") }
        assertUpdate(&state, .click(.cancel)) { $0.sheet = nil }
    }

    @Test("a key for a sheet that is not open does nothing")
    func otherSheet() {
        var state = loadedState()
        assertUpdate(&state, .key(.character("?"))) { $0.sheet = .help }
        assertUpdate(&state, .sheet(.confirmQuit(.enter)))
        assertUpdate(&state, .sheet(.confirm(.enter)))
    }

    @Test("delete a transaction: x asks, Esc keeps it, Enter deletes")
    func confirmCommand() {
        var state = managerWithPurchase()
        let command = StoreCommand.delete(2_000_000_001)
        assertUpdate(&state, .key(.character("x"))) { $0.sheet = .confirmCommand(command) }
        assertUpdate(&state, .key(.character("n"))) { $0.sheet = nil }
        assertUpdate(&state, .manager(.delete)) { $0.sheet = .confirmCommand(command) }
        assertUpdate(&state, .key(.enter), effects: [.run(command)]) {
            $0.sheet = nil
            $0.busy = .working(command.progress)
            $0.inFlight = command
        }
    }

    @Test("refund: f opens it with reason other, → changes the reason, Enter refunds, Esc closes")
    func refund() {
        var state = managerWithPurchase()
        let id: Int64 = 2_000_000_001
        assertUpdate(&state, .key(.character("f"))) { $0.sheet = .refund(id: id, reason: .other) }
        assertUpdate(&state, .key(.escape)) { $0.sheet = nil }
        assertUpdate(&state, .key(.character("f"))) { $0.sheet = .refund(id: id, reason: .other) }
        assertUpdate(&state, .key(.right)) { $0.sheet = .refund(id: id, reason: .developerIssue) }
        let command = StoreCommand.refund(id, reason: .developerIssue)
        assertUpdate(&state, .key(.enter), effects: [.run(command)]) {
            $0.sheet = nil
            $0.busy = .working(command.progress)
            $0.inFlight = command
        }
    }

    @Test("buy from outside the app: o lists the products, ↓ chooses, Enter buys, Esc closes")
    func outsidePurchase() {
        var state = managerWithPurchase()
        let products = state.products
        assertUpdate(&state, .key(.character("o"))) { $0.sheet = .outsidePurchase(selection: 0) }
        assertUpdate(&state, .key(.escape)) { $0.sheet = nil }
        assertUpdate(&state, .manager(.buyOutside)) { $0.sheet = .outsidePurchase(selection: 0) }
        assertUpdate(&state, .key(.down)) { $0.sheet = .outsidePurchase(selection: 1) }
        let command = StoreCommand.buyOutside(productID: products[1].id)
        assertUpdate(&state, .key(.enter), effects: [.run(command)]) {
            $0.sheet = nil
            $0.busy = .working(command.progress)
            $0.inFlight = command
        }
    }

    @Test("redeem code: o opens it empty, typing fills it, Enter redeems, Esc closes")
    func redeemCode() {
        var state = loadedState()
        assertUpdate(&state, .key(.character("o"))) { $0.sheet = .redeemCode() }
        assertUpdate(&state, .key(.escape)) { $0.sheet = nil }
        assertUpdate(&state, .paywall(.openRedeemCode)) { $0.sheet = .redeemCode() }
        assertUpdate(&state, .key(.character("F"))) { $0.sheet = .redeemCode(code: "F") }
        assertUpdate(&state, .key(.character("3"))) { $0.sheet = .redeemCode(code: "F3") }
        assertUpdate(&state, .key(.backspace)) { $0.sheet = .redeemCode(code: "F") }
        assertUpdate(&state, .key(.enter), effects: [.redeem(code: "F")]) { $0.busy = .working("Redeeming F…") }
        assertUpdate(&state, .key(.escape))  // not while it redeems
    }

    @Test("messages: m opens the list, ← → switch how new ones are handled, Esc closes")
    func messages() {
        var state = loadedState()
        assertUpdate(&state, .key(.character("m"))) { $0.sheet = .messages(selection: 0) }
        assertUpdate(&state, .key(.right)) { $0.messages.policy = .deferred }
        assertUpdate(&state, .key(.escape)) { $0.sheet = nil }
        assertUpdate(&state, .paywall(.openMessages)) { $0.sheet = .messages(selection: 0) }
        assertUpdate(&state, .key(.enter)) { $0.sheet = nil }
    }

    @Test("the app's refund request: b opens it, ↓ changes the reason, Enter asks, Esc cancels with a note")
    func refundRequest() {
        var state = managerWithPurchase()
        let id: Int64 = 2_000_000_001
        let (first, second) = (refundRequestReasons[0].0, refundRequestReasons[1].0)
        assertUpdate(&state, .key(.character("b")), effects: [.previewRefundRequest(transactionID: id)]) {
            $0.sheet = .refundRequest(transactionID: id, productID: swiftShopping, reason: first)
            _ = $0.refundRequestPrediction.ask(about: id, after: .tick)
        }
        assertUpdate(&state, .key(.escape)) {
            $0.sheet = nil
            $0.flash = "Refund request for Swift Shopping cancelled (userCancelled): nothing asked"
        }
        assertUpdate(&state, .manager(.requestRefund)) {
            $0.sheet = .refundRequest(transactionID: id, productID: swiftShopping, reason: first)
            $0.flash = nil
        }
        assertUpdate(&state, .key(.down)) {
            $0.sheet = .refundRequest(transactionID: id, productID: swiftShopping, reason: second)
        }
        let command = StoreCommand.requestRefund(id, reason: second)
        assertUpdate(&state, .key(.enter), effects: [.run(command)]) {
            $0.sheet = nil
            $0.busy = .working(command.progress)
            $0.inFlight = command
        }
    }
}
