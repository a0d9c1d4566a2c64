import Foundation
import StoreEngine
import StorefrontUI

// MARK: - Checking `expect` lines against the store and the screen

extension ScenarioRun {
    func check(_ expectation: Expectation, into result: inout StepResult) async throws {
        func fail(_ expected: String, _ found: String) {
            result.status = .failed
            (result.expected, result.found) = (expected, found)
        }
        let store = try observer()
        switch expectation {
        case .owned(let productID, let wanted):
            // What the paywall's checkmark shows: the standing in a snapshot, read as the app reads
            // it, after what arrives as an update (a renewal the clock made) is delivered; a purchase
            // the app made and left unfinished (refused unverified, finishTransactions false)
            // waits for the next launch, as in a running app.
            let left = try await store.appStore.transactions().filter { !$0.isFinished && $0.reason == .purchase }.map(\.id)
            let snapshot = try await store.app.snapshot(holding: Set(left))
            let owned = snapshot.products.filter { snapshot.standing(of: $0).isChecked }.map(\.id)
                + snapshot.owned.keys.filter { id in !snapshot.products.contains { $0.id == id } }
            if owned.contains(productID) != wanted {
                fail("\(productID) \(wanted ? "owned" : "not owned") (the app's checkmark)",
                     "owned: " + list(owned.sorted()))
            }
        case .entitled(let productID, let wanted):
            let entitled = try await store.app.currentEntitlements().map(\.productID)
            if entitled.contains(productID) != wanted {
                fail("\(productID) \(wanted ? "entitled" : "not entitled") (currentEntitlements)", "entitled: " + list(entitled))
            }
        case .balance(let productID, let wanted):
            let balance = try await store.app.balances()[productID] ?? 0
            if balance != wanted { fail("balance \(wanted) of \(productID)", "balance \(balance)") }
        case .status(let group, let wanted):
            let status = try await subscriptionStatus(group, store)
            let state = status?.state.rawValue ?? "none"
            if state != wanted { fail("\(group) \(wanted)", "\(group) \(state)") }
        case .renewal(let group, let field, let wanted):
            guard let status = try await subscriptionStatus(group, store) else {
                fail("\(group)'s renewal info with \(field) \(wanted)", "no subscription in \(group)")
                return
            }
            let value = text(commands.json(status.renewalInfo)[field])
            if value != wanted { fail("\(field) \(wanted)", "\(field) \(value)") }
        case .transactions(let productID, let wanted):
            let count = try await store.appStore.transactions().filter { $0.productID == productID }.count
            if count != wanted { fail("\(wanted) transaction\(wanted == 1 ? "" : "s") of \(productID)", "\(count)") }
        case .transaction(let word, let field, let wantedWord):
            let id = Scenario.isReference(word) ? try referenceID(word) : Int64(word.text)!
            let wanted = Scenario.isReference(wantedWord) ? String(try referenceID(wantedWord)) : wantedWord.text
            let transaction = try await store.appStore.transaction(id: id)
            let value = text(commands.json(transaction)[field])
            if value != wanted { fail("transaction \(id) \(field) \(wanted)", "\(field) \(value)") }
        case .screen(let text, let wanted):
            let screen = try await openPaywall()
            await screen.poll()
            let lines = screen.lines
            // The line's text, not its spacing: columns widen and narrow with the terminal (and a
            // wider one adds KIND), so the words are looked for in order on one line.
            let words = Self.spacing(text).split(separator: " ").map(String.init)
            let shown = lines.contains { line in
                Self.spacing(line).contains(Self.spacing(text))
                    || Self.wordsInOrder(words, Self.spacing(line).split(separator: " ").map(String.init)) == words.count
            }
            if shown != wanted {
                fail(wanted ? "the screen to show \"\(text)\"" : "the screen not to show \"\(text)\"",
                     wanted ? "not on screen" : "shown")
                result.screen = excerpt(lines, around: text)
            }
        case .output(let text):
            if !lastOutput.contains(where: { $0.contains(text) }) {
                fail("the last command's output to contain \"\(text)\"", lastOutput.isEmpty ? "no output" : lastOutput.joined(separator: "\n"))
            }
        case .error(let name):
            switch (lastError, name) {
            case (nil, "none"): break
            case (nil, _): fail("the last step to fail with \(name)", "it succeeded")
            case (let error?, "none"): fail("no error", error.message)
            case (let error?, _):
                if error.name != name, !error.message.contains(name) { fail("error \(name)", error.message) }
            }
        case .setting(let name, let wanted):
            let value = try await store.testSession.settings().first { $0.name == name }?.value ?? "none"
            if value != wanted { fail("\(name) = \(wanted)", "\(name) = \(value)") }
        case .notification(let type, let subtype):
            let recorded = try await store.appStore.notifications(after: notificationsSeen).filter { $0.notificationType != .test }
            let name = [type, subtype].compactMap { $0 }.joined(separator: " ")
            if let match = recorded.first(where: { $0.type == type && (subtype == nil || $0.subtype == subtype) }) {
                notificationsSeen = match.id
            } else {
                fail("a \(name) notification after the last one matched",
                     recorded.isEmpty ? "none recorded since" : list(recorded.map { [$0.type, $0.subtype].compactMap { $0 }.joined(separator: " ") }))
            }
        case .took(let seconds):
            if lastSeconds < seconds {
                fail(String(format: "the last step to take at least %.2f s", seconds), String(format: "%.2f s", lastSeconds))
            }
        }
    }

    /// The status of a group, named by its id or a product id of it.
    private func subscriptionStatus(_ group: String, _ store: Store) async throws -> SubscriptionStatus? {
        let statuses = try await store.appStore.subscriptionStatuses()
        if let status = statuses.first(where: { $0.groupID == group }) { return status }
        let groupID = try await store.app.product(id: group)?.subscription?.subscriptionGroupID
        return statuses.first { $0.groupID == groupID }
    }

    private func referenceID(_ word: ScenarioWord) throws -> Int64 {
        if word.text == "LAST" {
            guard let last else { throw ScenarioFailure("LAST names no transaction yet") }
            return last
        }
        guard let id = captures[String(word.text.dropFirst())] else { throw ScenarioFailure("\(word.text) was never captured") }
        return id
    }

    /// A JSON value as `expect` spells it: strings bare, `none` when absent.
    private func text(_ value: JSON?) -> String {
        switch value {
        case nil, .null?: "none"
        case .bool(let flag)?: flag ? "true" : "false"
        case .number(let text)?: text
        case .string(let text)?: text
        case let other?: other.serialized()
        }
    }

    static func plainSpaces(_ text: String) -> String {
        String(text.map { $0 == "\u{00A0}" || $0 == "\u{202F}" ? " " : $0 })
    }

    /// `text` with every run of spaces one plain space, and none at its ends. Locales put no-break
    /// spaces in prices ("0,99 €"): a scenario writes a plain space.
    static func spacing(_ text: String) -> String {
        plainSpaces(text).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    private func list(_ items: [String]) -> String { items.isEmpty ? "nothing" : items.joined(separator: ", ") }

    /// The screen around where `text` should be, two lines either side, that line marked `▶`: the
    /// line sharing most of its words in order, and of those the one they make up most of (the status
    /// line "Purchased Swift Shopping" before the row "Swift Shopping $0.99 Owned [ Buy ]").
    func excerpt(_ lines: [String], around text: String) -> [String] {
        let words = Self.spacing(text).split(separator: " ").map(String.init)
        let scores = lines.map { line -> (Int, Double) in
            let shown = Self.spacing(line).split(separator: " ").map(String.init)
            let common = Self.wordsInOrder(words, shown)
            return (common, shown.isEmpty ? 0 : Double(common) / Double(shown.count))
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }), scores[best].0 > 0 else {
            return lines.enumerated().map { String(format: "%3d │ ", $0.offset + 1) + $0.element }
        }
        return (max(0, best - 2)...min(lines.count - 1, best + 2)).map {
            String(format: $0 == best ? "%3d ▶ " : "%3d │ ", $0 + 1) + lines[$0]
        }
    }

    /// How many of `wanted`'s words `line` has in the same order (their longest common subsequence);
    /// a word cut short with "…" on screen counts when the wanted word starts with what is left.
    static func wordsInOrder(_ wanted: [String], _ line: [String]) -> Int {
        guard !wanted.isEmpty, !line.isEmpty else { return 0 }
        var previous = [Int](repeating: 0, count: line.count + 1)
        for word in wanted {
            var current = [Int](repeating: 0, count: line.count + 1)
            for (index, shown) in line.enumerated() {
                let same = shown == word || (shown.hasSuffix("…") && shown.count > 1 && word.hasPrefix(shown.dropLast()))
                current[index + 1] = same ? previous[index] + 1 : max(previous[index + 1], current[index])
            }
            previous = current
        }
        return previous[line.count]
    }
}

extension ProductStanding {
    /// Whether the paywall checks the product (`expect owned`): the app has it, bought or shared by family.
    var isChecked: Bool { productType != .consumable && (ownership == .owned || ownership == .familyShared) }
}
