import StoreEngine

// Keys on a sheet (the App Store's, a question, an alert, help): for `update`.

/// The outcomes the confirmation sheet cycles through; nil follows the settings.
let sheetOutcomes: [PurchaseChoice?] = [nil, .succeed, .cancel, .askToBuy, .interrupt]
    + SimulatedError.cases(in: [.storeKitError, .purchaseError]).filter { $0 != .userCancelled }.map { .fail($0) }

func sheet(_ state: inout State, _ key: Key) -> [Effect] {
    switch (state.sheet, key) {
    case (.confirm(let productID, let outcome, var selection), .up), (.confirm(let productID, let outcome, var selection), .down):
        if moveSheetFocus(&selection, state.products.first { $0.id == productID }, up: key == .up, state) {
            state.sheet = .confirm(productID: productID, outcome: outcome, offer: selection)
        }
    case (.confirm(let productID, let outcome, var selection), .left) where selection.focus != .outcome,
         (.confirm(let productID, let outcome, var selection), .right) where selection.focus != .outcome:
        stepOffer(&selection, state.products.first { $0.id == productID }, by: key == .left ? -1 : 1, state)
        state.sheet = .confirm(productID: productID, outcome: outcome, offer: selection)
    case (.confirm(let productID, let outcome, let selection), .left), (.confirm(let productID, let outcome, let selection), .right),
         (.confirm(let productID, let outcome, let selection), .character("o")),
         (.confirm(let productID, let outcome, let selection), .tab):
        let index = sheetOutcomes.firstIndex(of: outcome) ?? 0
        let step = key == .left ? -1 : 1
        state.sheet = .confirm(productID: productID,
                               outcome: sheetOutcomes[(index + step + sheetOutcomes.count) % sheetOutcomes.count], offer: selection)
    case (.confirm(let productID, let outcome, let selection), .enter), (.confirm(let productID, let outcome, let selection), .character("y")):
        state.sheet = nil
        state.flash = nil
        state.busy = .purchasing(productID: productID)
        return [.purchase(productID: productID, outcome: outcome, offer: selection.offer)]
    case (.alreadyOwned(let productID), .enter), (.alreadyOwned(let productID), .character("y")):
        state.sheet = nil
        state.flash = nil
        state.busy = .purchasing(productID: productID)
        return [.purchase(productID: productID)]
    case (.confirmCommand(let command), .enter), (.confirmCommand(let command), .character("y")):
        state.sheet = nil
        return run(command, &state)
    case (.confirmCommand, .escape), (.confirmCommand, .character("n")), (.confirmCommand, .character("q")):
        state.sheet = nil
    case (.outsidePurchase(let selection), .up), (.outsidePurchase(let selection), .down):
        let count = state.products.count
        guard count > 0 else { break }
        state.sheet = .outsidePurchase(selection: (selection + (key == .up ? -1 : 1) + count) % count)
    case (.outsidePurchase(let selection), .pageUp), (.outsidePurchase(let selection), .pageDown),
         (.outsidePurchase(let selection), .home), (.outsidePurchase(let selection), .end):
        let last = max(0, state.products.count - 1)
        let page = max(1, min(state.size.rows - 8, 12) - 3)
        let target = switch key {
        case .pageUp: selection - page
        case .pageDown: selection + page
        case .home: 0
        default: last
        }
        state.sheet = .outsidePurchase(selection: min(max(0, target), last))
    case (.outsidePurchase(let selection), .enter):
        state.sheet = nil
        guard state.products.indices.contains(selection) else { break }
        return run(.buyOutside(productID: state.products[selection].id), &state)
    case (.outsidePurchase, .escape), (.outsidePurchase, .character("q")):
        state.sheet = nil
    case (.confirm(let productID, _, _), .escape), (.confirm(let productID, _, _), .character("n")),
         (.confirm(let productID, _, _), .character("q")):
        // Dismissing the App Store sheet is StoreKit's userCancelled: the same purchase as the
        // "cancel" outcome, so the log records it and the screen says it the same way.
        state.sheet = nil
        state.flash = nil
        state.busy = .purchasing(productID: productID)
        return [.purchase(productID: productID, outcome: .cancel)]
    case (.alreadyOwned, .escape), (.alreadyOwned, .character("n")), (.alreadyOwned, .character("q")):
        state.sheet = nil
    case (.confirmQuit, .enter), (.confirmQuit, .character("y")), (.confirmQuit, .character("q")):
        state.sheet = nil
        state.isRunning = false
    case (.confirmQuit, .escape), (.confirmQuit, .character("n")):
        state.sheet = nil
    case (.refund(let id, let reason), .left), (.refund(let id, let reason), .right), (.refund(let id, let reason), .tab):
        state.sheet = .refund(id: id, reason: reason == .other ? .developerIssue : .other)
    case (.refund(let id, let reason), .enter), (.refund(let id, let reason), .character("y")):
        state.sheet = nil
        return run(.refund(id, reason: reason), &state)
    case (.refund, .escape), (.refund, .character("n")), (.refund, .character("q")):
        state.sheet = nil
    case (.help, .down), (.help, .character("j")): state.helpScroll += 1
    case (.help, .up), (.help, .character("k")): state.helpScroll = max(0, state.helpScroll - 1)
    case (.help, .pageDown), (.help, .character(" ")): state.helpScroll += max(1, state.size.rows - 8)
    case (.help, .pageUp): state.helpScroll = max(0, state.helpScroll - max(1, state.size.rows - 8))
    case (.alert, .enter), (.alert, .escape), (.alert, .character("q")), (.alert, .character(" ")),
         (.help, .enter), (.help, .escape), (.help, .character("q")), (.help, .character("?")):
        state.sheet = nil
    case (.redeemCode, _), (.message, _), (.priceIncrease, _), (.messages, _), (.refundRequest, _):
        return appSheetKey(&state, key)
    default:
        break
    }
    return []
}
