import StoreEngine
import Testing
@testable import StorefrontUI

/// The confirmation sheet's outcome choice: how this one purchase ends, whatever the settings say.
@Suite("outcome sheet")
struct OutcomeSheetTests {
    /// The paywall with the confirmation sheet open on Swift Shopping.
    func sheetOpen() -> State {
        var state = loadedState()
        state.selection = index(of: swiftShopping)
        send(&state, .key(.enter), expecting: [])
        return state
    }

    func outcome(_ state: State) -> PurchaseChoice?? {
        guard case .confirm(let productID, let outcome, _) = state.sheet, productID == swiftShopping else { return .none }
        return .some(outcome)
    }

    @Test("the sheet opens on 'as the settings say'; → o tab step forward, ← back, without buying")
    func cycles() {
        var state = sheetOpen()
        #expect(outcome(state) == .some(nil))
        #expect(update(&state, .key(.right)).isEmpty)
        #expect(outcome(state) == .some(.succeed))
        #expect(update(&state, .key(.character("o"))).isEmpty)
        #expect(outcome(state) == .some(.cancel))
        #expect(update(&state, .key(.tab)).isEmpty)
        #expect(outcome(state) == .some(.askToBuy))
        send(&state, .key(.right), expecting: [])
        #expect(outcome(state) == .some(.interrupt))
        send(&state, .key(.right), expecting: [])
        #expect(outcome(state) == .some(.fail(.networkError)), "the errors follow, StoreKitError's first")
        send(&state, .key(.left), expecting: [])
        send(&state, .key(.left), expecting: [])
        #expect(outcome(state) == .some(.askToBuy))
        #expect(state.busy == nil, "choosing never starts the purchase")
    }

    @Test("← from the first choice wraps to the last error; a whole turn comes back to the start")
    func wraps() {
        var state = sheetOpen()
        send(&state, .key(.left), expecting: [])
        #expect(outcome(state) == .some(.fail(.missingOfferParameters)))
        send(&state, .key(.right), expecting: [])
        #expect(outcome(state) == .some(nil))
        var seen: [PurchaseChoice?] = []
        for _ in sheetOutcomes {
            seen.append(outcome(state)!)
            send(&state, .key(.right), expecting: [])
        }
        #expect(outcome(state) == .some(nil))
        #expect(Set(seen.compactMap { $0.map { "\($0)" } }).count == sheetOutcomes.count - 1, "each choice comes once")
        // Cancelling is its own choice; failing with userCancelled would be the same thing twice.
        #expect(!seen.contains(.fail(.userCancelled)))
        #expect(!seen.contains { if case .fail(let error) = $0 { error.domain == .verificationError } else { false } },
                "verification errors are not purchase outcomes")
    }

    @Test("Confirm buys with the chosen outcome; the default sends none, so the settings decide")
    func confirmCarriesOutcome() {
        var state = sheetOpen()
        #expect(update(&state, .key(.enter)) == [.purchase(productID: swiftShopping, outcome: nil)])

        state = sheetOpen()
        send(&state, .key(.right), expecting: [])
        send(&state, .key(.right), expecting: [])
        send(&state, .key(.right), expecting: [])
        #expect(update(&state, .key(.character("y"))) == [.purchase(productID: swiftShopping, outcome: .askToBuy)])
        #expect(state.sheet == nil)
        #expect(state.busy == .purchasing(productID: swiftShopping))

        // A click on [ Confirm ] is the same as Enter.
        state = sheetOpen()
        send(&state, .key(.left), expecting: [])
        #expect(update(&state, .click(.confirm)) == [.purchase(productID: swiftShopping, outcome: .fail(.missingOfferParameters))])
    }

    @Test("Esc after choosing an outcome cancels, whatever was chosen: the same as the 'cancel' outcome")
    func escapeAfterChoosing() {
        var state = sheetOpen()
        send(&state, .key(.right), expecting: [])
        #expect(update(&state, .key(.escape)) == [.purchase(productID: swiftShopping, outcome: .cancel)])
        #expect(state.sheet == nil)
        #expect(state.isRunning)
        var chosen = sheetOpen()
        send(&chosen, .key(.right), expecting: [])
        send(&chosen, .key(.right), expecting: [])
        #expect(update(&chosen, .key(.enter)) == [.purchase(productID: swiftShopping, outcome: .cancel)], "the same effect")
    }

    @Test("the sheet shows the choice, highlighted once it is not the default, never cut off")
    func rendersEveryChoice() throws {
        var state = sheetOpen()
        state.size = Size(columns: 60, rows: 20)  // the narrowest screen: the sheet's narrowest
        for choice in sheetOutcomes {
            let canvas = render(state, timeZone: utc)
            let row = try #require(canvas.lines.firstIndex { $0.contains("Outcome: ") })
            let line = canvas.lines[row]
            // Inside the sheet's borders, whole.
            let inside = line.components(separatedBy: "│")
            #expect(inside.count == 3 && inside[1].contains("Outcome: ‹ \(outcomeLabel(choice)) › "), "cut or wrong: \(line)")
            let x = line.distance(of: "Outcome")
            #expect(canvas[x, row].style.bold == (choice != nil))
            #expect(canvas[x, row].style.color == (choice == nil ? nil : .yellow))
            send(&state, .key(.right), expecting: [])
        }
        #expect(outcomeLabel(.fail(.networkError)) == "fail: networkError")
        #expect(outcomeLabel(.askToBuy) == "Ask to Buy (pending)")
    }

    @Test("a pending purchase says what it waits for and where to act")
    func pendingAlerts() {
        var state = sheetOpen()
        send(&state, .key(.enter), expecting: [.purchase(productID: swiftShopping)])
        #expect(update(&state, .paywall(.purchased(productID: swiftShopping, bought(.pending(pendingRequest(swiftShopping, reason: .askToBuy)), swiftShopping)))) == [.load])
        guard case .alert(let title, let message) = state.sheet else {
            Issue.record("no alert: \(String(describing: state.sheet))")
            return
        }
        #expect(title == "Purchase Pending")
        #expect(message.contains("Swift Shopping") && message.contains("Ask to Buy") && message.contains("t, then a"))
        #expect(state.busy == nil)

        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.enter), expecting: [.purchase(productID: swiftShopping)])
        send(&state, .paywall(.purchased(productID: swiftShopping, bought(.pending(pendingRequest(swiftShopping, reason: .interrupted)), swiftShopping))), expecting: [.load])
        guard case .alert(_, let interrupted) = state.sheet else {
            Issue.record("no alert")
            return
        }
        #expect(interrupted.contains("interrupted") && interrupted.contains("t, then v"))
        #expect(!interrupted.contains("Ask to Buy"))
    }
}
