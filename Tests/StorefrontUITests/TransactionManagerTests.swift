import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

let nightlyRage = "com.razeware.razefaces.nightlyrage"
let goPro = "com.CephalopodStudio.PurchasePro.GoPro"

/// An account's history in every state the manager tells apart, newest first.
let history: [StoreEngine.Transaction] = [
    transaction(iPhoneRage, id: 2_000_000_006, status: .pending, pending: .askToBuy,
                purchased: fixedDate.addingTimeInterval(14 * 3600 + 2 * 60)),
    transaction(nightlyRage, id: 2_000_000_005, status: .pending, pending: .interrupted,
                purchased: fixedDate.addingTimeInterval(13 * 3600)),
    transaction(monthly, id: 2_000_000_004, purchased: fixedDate.addingTimeInterval(12 * 3600),
                expires: fixedDate.addingTimeInterval(12 * 3600 + 30 * 86_400)),
    transaction(swiftShopping, id: 2_000_000_003, refunded: true, purchased: fixedDate.addingTimeInterval(11 * 3600)),
    transaction(goPro, id: 2_000_000_002, status: .declined, purchased: fixedDate.addingTimeInterval(10 * 3600)),
    transaction(coins, id: 2_000_000_001, finished: false, purchased: fixedDate.addingTimeInterval(9 * 3600 + 30 * 60)),
]

/// The Transaction Manager (t): its list, the keys that act on the selected transaction, and its screen.
@Suite("transaction manager")
struct TransactionManagerTests {
    /// The manager with `history` loaded and the transaction `id` selected.
    func manager(selecting id: Int64? = nil) -> State {
        var state = loadedState(on: .transactions)
        send(&state, .manager(.historyLoaded(history)), expecting: [])
        if let id { selectTransaction(&state, history.firstIndex { $0.id == id }!) }
        return state
    }

    @Test("a history that cannot be read shows an alert and an empty list, not a spinner for ever")
    func historyFailed() {
        var state = loadedState()
        send(&state, .key(.character("t")), expecting: [.loadHistory])
        send(&state, .manager(.historyFailed("store file /tmp/x.sqlite: disk I/O error")), expecting: [])
        #expect(state.manager.transactions == [])
        #expect(state.sheet == .alert(title: "Cannot Load Transactions", message: "store file /tmp/x.sqlite: disk I/O error"))
        let text = render(state).lines.joined(separator: "\n")
        #expect(!text.contains("Loading transactions…"))
        #expect(text.contains("disk I/O error"))
        // Off the manager, a late failure is not an alert over another screen.
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.character("p")), expecting: [])
        send(&state, .manager(.historyFailed("again")), expecting: [])
        #expect(state.sheet == nil)
    }

    @Test("t opens the manager and reads the history; p, esc and the tabs go back")
    func switching() {
        var state = loadedState()
        state.flash = "Purchased Swift Shopping"
        #expect(update(&state, .key(.character("t"))) == [.loadHistory])
        #expect(state.screen == .transactions)
        #expect(state.flash == nil, "a note about the paywall does not follow to another screen")
        #expect(render(state).lines.contains { $0.contains("Loading transactions…") })
        send(&state, .manager(.historyLoaded(history)), expecting: [])
        #expect(update(&state, .key(.character("p"))).isEmpty)
        #expect(state.screen == .paywall)
        send(&state, .key(.character("t")), expecting: [.loadHistory])
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.screen == .paywall)
        #expect(state.isRunning, "esc on another screen goes back; it does not quit")
        // The tabs in the title bar are clickable, on every screen.
        let canvas = render(state)
        let x = canvas.lines[0].distance(of: "t Transactions")
        #expect(canvas.target(atX: x + 2, y: 0) == .screen(.transactions))
        #expect(update(&state, .click(.screen(.transactions))) == [.loadHistory])
        let settingsX = render(state).lines[0].distance(of: "s Settings")
        #expect(render(state).target(atX: settingsX, y: 0) == .screen(.settings))
        #expect(update(&state, .click(.screen(.settings))) == [.loadSettings])
        #expect(state.screen == .settings)
    }

    @Test("each action key runs its command only on a transaction that allows it; otherwise a note says why")
    func actionsNeedTheRightState() {
        let allowed: [(key: Character, command: (Int64) -> StoreCommand, ids: Set<Int64>, progress: String)] = [
            ("a", StoreCommand.approve, [2_000_000_006], "Approving request"),
            ("d", StoreCommand.decline, [2_000_000_006], "Declining request"),
            ("v", StoreCommand.resolve, [2_000_000_005], "Resolving request"),
        ]
        for (key, command, ids, progress) in allowed {
            for transaction in history {
                var state = manager(selecting: transaction.id)
                let effects = update(&state, .key(.character(key)))
                if ids.contains(transaction.id) {
                    #expect(effects == [.run(command(transaction.id))], "\(key) on \(TransactionState(of: transaction, at: .distantPast).text)")
                    #expect(state.busy == .working("\(progress) \(transaction.id)…"))
                    #expect(state.flash == nil)
                } else {
                    #expect(effects.isEmpty, "\(key) on \(TransactionState(of: transaction, at: .distantPast).text) must do nothing")
                    #expect(state.busy == nil)
                    #expect(state.flash?.isEmpty == false, "\(key) on \(TransactionState(of: transaction, at: .distantPast).text) says why not")
                }
            }
        }
    }

    @Test("a family-shared purchase offers no f refund (nor b): f says the engine's refusal and starts nothing")
    func familyShareIsNotRefunded() throws {
        var shared = transaction(swiftShopping, id: 2_000_000_010, purchased: fixedDate.addingTimeInterval(15 * 3600))
        shared.ownershipType = .familyShared
        var state = loadedState(on: .transactions)
        let facts = TransactionFacts(shared, at: fixedDate.addingTimeInterval(16 * 3600))
        send(&state, .manager(.historyLoaded([shared] + history, facts: [facts])), expecting: [])
        #expect(state.manager.facts(of: shared, state) == facts, "the facts the face read with the list")
        let screen = render(state, timeZone: utc).lines
        let line = try #require(screen.first { $0.contains("tx 2000000010") }, "\n\(screen.joined(separator: "\n"))")
        #expect(line.contains("i details  x delete"), "\(line)")
        #expect(!line.contains("f refund") && !line.contains("b ask refund"), "\(line)")
        #expect(screen[29].hasPrefix(" ↑↓ move  x delete  i details") && !screen[29].contains("f refund"), "the footer: \(screen[29])")
        let refusal = try #require(facts.refusal(of: .refund))
        assertUpdate(&state, .key(.character("f"))) { $0.flash = "No refund: \(refusal)" }
        #expect(state.sheet == nil, "no refund sheet, so no refund effect to come")
        // The purchaser's own transaction still offers it, and f opens the reason sheet.
        selectTransaction(&state, 3)
        #expect(state.manager.selected?.id == 2_000_000_004)
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("tx 2000000004") && $0.contains("f refund") })
        assertUpdate(&state, .key(.character("f"))) { $0.sheet = .refund(id: 2_000_000_004, reason: .other) }
    }

    @Test("a family share revoked by the purchaser's refund says so under the list, as its row does: revoked, not refunded")
    func revokedShareSaysRevoked() throws {
        var shared = transaction(swiftShopping, id: 2_000_000_010, refunded: true)
        shared.ownershipType = .familyShared
        shared.revocationReason = .developerIssue
        var state = loadedState(on: .transactions)
        send(&state, .manager(.historyLoaded([shared] + history)), expecting: [])
        let screen = render(state, timeZone: utc).lines
        let row = try #require(screen.first { $0.contains("2000000010") && !$0.contains("tx ") })
        #expect(row.contains("revoked (family share)"), "\(row)")
        let line = try #require(screen.first { $0.contains("tx 2000000010") }, "\n\(screen.joined(separator: "\n"))")
        #expect(line.contains("revoked (family share, developerIssue)") && !line.contains("refunded"), "\(line)")
    }

    @Test("while a command runs, another key starts nothing")
    func oneCommandAtATime() {
        var state = manager(selecting: 2_000_000_006)
        send(&state, .key(.character("a")), expecting: [.run(.approve(2_000_000_006))])
        #expect(update(&state, .key(.character("d"))).isEmpty)
        #expect(state.busy == .working("Approving request 2000000006…"))
    }

    @Test("a finished command notes its result and reads the screen again; a failure is an alert")
    func commandFinished() {
        var state = manager(selecting: 2_000_000_006)
        send(&state, .key(.character("a")), expecting: [.run(.approve(2_000_000_006))])
        let effects = update(&state, .commandFinished(.approve(2_000_000_006), .success("Approved 2000000006 (iPhone Rage)")))
        #expect(effects == [.load, .loadHistory], "the list and the paywall's checkmarks both change")
        #expect(state.busy == nil)
        #expect(state.flash == "Approved 2000000006 (iPhone Rage)")

        send(&state, .key(.character("a")), expecting: [.run(.approve(2_000_000_006))])
        send(&state, .commandFinished(.approve(2_000_000_006), .failure(CommandFailure("transaction 2000000006 cannot be approved"))), expecting: [.load, .loadHistory])
        #expect(state.sheet == .alert(title: "Cannot approve", message: "transaction 2000000006 cannot be approved"))
        #expect(state.busy == nil)
    }

    @Test("x asks before deleting; n or esc keeps the transaction, y or Enter deletes it")
    func deleteAsksFirst() {
        var state = manager(selecting: 2_000_000_003)
        #expect(update(&state, .key(.character("x"))).isEmpty, "nothing is deleted before the answer")
        #expect(state.sheet == .confirmCommand(.delete(2_000_000_003)))
        let text = render(state).lines.joined(separator: "\n")
        #expect(text.contains("Are You Sure?"))
        #expect(text.contains("Delete transaction 2000000003"))
        #expect(text.contains("[ Delete ⏎ ]"))
        #expect(update(&state, .key(.character("n"))).isEmpty)
        #expect(state.sheet == nil)
        #expect(state.screen == .transactions)
        send(&state, .key(.character("x")), expecting: [])
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.screen == .transactions, "esc closes the question, not the screen")
        send(&state, .key(.character("x")), expecting: [])
        #expect(update(&state, .key(.enter)) == [.run(.delete(2_000_000_003))])
        #expect(state.sheet == nil)
        #expect(state.busy == .working("Deleting 2000000003…"))
        // Any transaction may be deleted, pending ones too.
        var pending = manager(selecting: 2_000_000_006)
        send(&pending, .key(.character("x")), expecting: [])
        #expect(update(&pending, .key(.character("y"))) == [.run(.delete(2_000_000_006))])
    }

    @Test("o opens the product picker; arrows choose, Enter buys the chosen product outside the app")
    func buyOutside() {
        var state = manager()
        #expect(update(&state, .key(.character("o"))).isEmpty)
        #expect(state.sheet == .outsidePurchase(selection: 0))
        send(&state, .key(.down), expecting: [])
        send(&state, .key(.down), expecting: [])
        #expect(state.sheet == .outsidePurchase(selection: 2))
        let text = render(state).lines.joined(separator: "\n")
        #expect(text.contains("Buy From Outside the App"))
        let products = demoCatalog.products(in: demoCatalog.storefront("USA")!)
        #expect(text.contains { _ in true } && render(state).lines.contains { line in
            line.contains("▸ \(products[2].displayName) ") && line.contains("  \(products[2].displayPrice) │")
        }, "the price at the right of its line")
        var paged = state
        #expect(update(&paged, .key(.end)).isEmpty)
        #expect(paged.sheet == .outsidePurchase(selection: products.count - 1), "End goes to the last")
        send(&paged, .key(.home), expecting: [])
        #expect(paged.sheet == .outsidePurchase(selection: 0))
        send(&paged, .key(.pageDown), expecting: [])
        guard case .outsidePurchase(let after) = paged.sheet else { return }
        #expect(after > 1, "PgDn moves by a page")
        #expect(update(&state, .key(.enter)) == [.run(.buyOutside(productID: products[2].id))])
        #expect(state.sheet == nil)
        #expect(state.busy == .working("Purchasing outside the app…"))

        // ↑ from the first wraps to the last; esc buys nothing.
        var other = manager()
        send(&other, .key(.character("o")), expecting: [])
        send(&other, .key(.up), expecting: [])
        #expect(other.sheet == .outsidePurchase(selection: products.count - 1))
        #expect(update(&other, .key(.escape)).isEmpty)
        #expect(other.sheet == nil)
        #expect(other.screen == .transactions)
        #expect(other.busy == nil)
    }

    @Test("arrows and clicks move the selection; the line under the list says what it allows")
    func selection() {
        var state = manager()
        #expect(state.manager.selected?.id == 2_000_000_006)
        send(&state, .key(.down), expecting: [])
        send(&state, .key(.character("j")), expecting: [])
        #expect(state.manager.selected?.id == 2_000_000_004)
        send(&state, .key(.end), expecting: [])
        #expect(state.manager.selected?.id == 2_000_000_001)
        send(&state, .key(.down), expecting: [])
        #expect(state.manager.selected?.id == 2_000_000_001, "moving down from the last stays there")
        send(&state, .key(.home), expecting: [])
        #expect(state.manager.selected?.id == 2_000_000_006)
        var canvas = render(state, timeZone: utc)
        let row = canvas.lines.firstIndex { $0.contains("2000000003") }!
        #expect(canvas.target(atX: 30, y: row) == .row(3))
        send(&state, .click(.row(3)), expecting: [])
        #expect(state.manager.selected?.id == 2_000_000_003)
        canvas = render(state, timeZone: utc)
        #expect(canvas.lines[27] == "  tx 2000000003 · $0.99 · refunded (other)  ·  i details  x delete")
    }

    @Test("a long history scrolls with the selection, with arrows for the rows out of sight")
    func scrolling() {
        let long = (0..<40).map { transaction(coins, id: 3_000_000_000 - Int64($0)) }
        var state = loadedState(on: .transactions, columns: 80, rows: 24)
        send(&state, .manager(.historyLoaded(long)), expecting: [])
        send(&state, .key(.end), expecting: [])
        var lines = render(state, timeZone: utc).lines
        #expect(lines.contains { $0.contains("2999999961") }, "the selected last row is on screen")
        #expect(!lines.contains { $0.contains("3000000000") })
        #expect(lines[4].hasSuffix("↑"))
        send(&state, .key(.home), expecting: [])
        lines = render(state, timeZone: utc).lines
        #expect(lines[4].contains("3000000000"))
        #expect(lines.contains { $0.hasSuffix("↓") })
        #expect(!lines.contains { $0.hasSuffix("↑") })
    }

    @Test("a reloaded, shorter history keeps the selection on a row that exists and on screen")
    func shorterHistory() {
        let long = (0..<40).map { transaction(coins, id: 3_000_000_000 - Int64($0)) }
        var state = loadedState(on: .transactions, columns: 80, rows: 24)
        send(&state, .manager(.historyLoaded(long)), expecting: [])
        send(&state, .key(.end), expecting: [])
        send(&state, .manager(.historyLoaded(Array(long.prefix(3)))), expecting: [])
        #expect(state.manager.selected?.id == 2_999_999_998)
        let lines = render(state, timeZone: utc).lines
        #expect(lines.contains { $0.contains("▸") && $0.contains("2999999998") }, "the selected row is drawn:\n\(lines.joined(separator: "\n"))")
    }

    @Test("after the window shrinks the selected transaction is still on screen")
    func shrink() {
        let long = (0..<40).map { transaction(coins, id: 3_000_000_000 - Int64($0)) }
        var state = loadedState(on: .transactions)
        send(&state, .manager(.historyLoaded(long)), expecting: [])
        selectTransaction(&state, 20)
        #expect(render(state).lines.contains { $0.hasPrefix("▸ 2999999980") })
        send(&state, .resized(Size(columns: 80, rows: 16)), expecting: [])
        let lines = render(state, timeZone: utc).lines
        #expect(lines.contains { $0.hasPrefix("▸ 2999999980") }, "the cursor's row is drawn:\n\(lines.joined(separator: "\n"))")
        #expect(lines[4].hasSuffix("↑"))
    }

    @Test("a load that delivered an update reads the manager's list again, after the delivery")
    func arrivedRereadsHistory() {
        var state = manager(selecting: 2_000_000_006)
        var snap = snapshot(owned: [purchase(iPhoneRage)], dataVersion: 2)
        snap.arrived = [iPhoneRage]
        // The list read alongside this load may still say "purchased, unfinished".
        #expect(update(&state, .loaded(snap)) == [.loadHistory])
        #expect(update(&state, .loaded(snapshot(dataVersion: 3))).isEmpty, "nothing arrived: nothing to read again")
        var paywall = loadedState()
        #expect(update(&paywall, .loaded(snap)).isEmpty, "the paywall shows no list")
    }

    @Test("an empty history says how to make one")
    func empty() {
        var state = loadedState(on: .transactions)
        send(&state, .manager(.historyLoaded([])), expecting: [])
        #expect(render(state).lines[4].contains("No transactions for this tester yet."))
        #expect(update(&state, .key(.character("a"))).isEmpty)
        #expect(update(&state, .key(.character("x"))).isEmpty)
        #expect(state.sheet == nil)
    }

    @Test("the manager at 100×30: pending, refunded, declined, purchased rows; dates in the given time zone")
    func managerScreen100x30() {
        var state = manager(selecting: 2_000_000_005)
        state.flash = "Approved 2000000007 (Go Pro): it arrives as an update"
        let expected = [
            " Storefront · store.sqlite · tester@local · USA               p Paywall  t Transactions  s Settings",
            "  Transaction Manager · tester@local · 6 transactions, newest first",
            String(repeating: "─", count: 93) + " 2/6 ──",
            "  ID          PRODUCT                   PURCHASED         STATE                  EXPIRES",
            "  2000000006  iPhone Rage               2026-12-01 14:02  pending (Ask to Buy)",
            "▸ 2000000005  Nightly Rage              2026-12-01 13:00  pending (interrupted)",
            "  2000000004  Monthly Subscription      2026-12-01 12:00  purchased              2026-12-31 12:00",
            "  2000000003  Swift Shopping            2026-12-01 11:00  refunded",
            "  2000000002  Go Pro                    2026-12-01 10:00  declined",
            "  2000000001  100 Coins                 2026-12-01 09:30  purchased, unfinished",
            "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
            String(repeating: "─", count: 100),
            "  request 2000000005 · $0.99  ·  i details  v resolve (complete it)  x delete",
            "  Approved 2000000007 (Go Pro): it arrives as an update",
            // The interrupted purchase selected: only the actions the engine allows on it are offered.
            " ↑↓ move  v resolve  x delete  i details  o outside  + > clock  / search  ? help  q quit",
        ]
        let canvas = render(state, timeZone: utc)
        #expect(canvas.lines == expected)
        // The selected row's id and product are highlighted; states are colored by what they mean.
        #expect(canvas[20, 5].style.reverse)
        #expect(!canvas[20, 4].style.reverse)
        #expect(!canvas[50, 5].style.reverse)
        #expect(canvas[60, 4].style.color == .yellow)
        #expect(canvas[60, 7].style.color == .red)
        #expect(canvas[60, 8].style.color == .red)
        #expect(canvas[60, 6].style.color == nil)
        // The tab of the screen shown is not in reverse video, the others are.
        let tab = canvas.lines[0].distance(of: "t Transactions")
        #expect(!canvas[tab, 0].style.reverse)
        #expect(canvas[canvas.lines[0].distance(of: "p Paywall"), 0].style.reverse)
        // Another time zone moves the times, not the rows.
        let tokyo = render(state, timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(tokyo.lines[4].contains("2026-12-01 23:02"))
        #expect(tokyo.lines[5].contains("2026-12-01 22:00"))
    }

    @Test("the manager's scroll mark never covers a date's digit")
    func markClearOfDates() {
        let history = (0..<40).map { transaction(monthly, id: 2_000_000_100 + Int64($0), expires: fixedDate.addingTimeInterval(86_400 * 30)) }
        for columns in [98, 100, 120] {
            var state = loadedState(on: .transactions, columns: columns, rows: 24)
            send(&state, .manager(.historyLoaded(history)), expecting: [])
            let lines = render(state, timeZone: utc).lines
            let marked = lines.filter { $0.hasSuffix("↓") || $0.hasSuffix("↓ ") }
            #expect(!marked.isEmpty, "\(columns): a mark shows")
            for line in marked { #expect(line.contains("2026-12-31 00:00 ") || !line.contains("2026-12-31"), "\(columns): \(line)") }
        }
    }

    @Test("an ended subscription period is expired in the manager, by the store's clock")
    func expiredInManager() {
        var snap = snapshot()
        snap.storeTime = fixedDate.addingTimeInterval(86_400 * 40)
        var state = loadedState(on: .transactions, snapshot: snap)
        send(&state, .manager(.historyLoaded([transaction(monthly, id: 2_000_000_001, expires: fixedDate.addingTimeInterval(86_400 * 30))])), expecting: [])
        #expect(render(state, timeZone: utc).lines[4].contains("expired"))
        let unloaded = State(size: Size(columns: 100, rows: 30), account: "t", storePath: "/tmp/s", paywall: demoCatalog.paywall)
        #expect(unloaded.manager.facts(of: transaction(monthly, id: 1, expires: fixedDate), unloaded).state == .purchased,
                "no clock, no judgement")
    }
}
