import Foundation
import StoreEngine

// MARK: - Reading `expect` lines

extension Scenario {
    /// The forms `expect` takes, for error messages and help.
    static let expectationForms = """
        owned ID, not owned ID, entitled ID, not entitled ID, balance ID N, status GROUP STATE, \
        renewal GROUP FIELD VALUE, transactions ID N, transaction REF FIELD VALUE, screen "TEXT", \
        not screen "TEXT", output "TEXT", error NAME, setting NAME VALUE, took >= DURATION, \
        notification TYPE [SUBTYPE]
        """

    /// Parses the words after `expect`.
    static func expectation(_ words: [ScenarioWord], captures: Set<String>) throws(LineFault) -> Expectation {
        guard var head = words.first else {
            throw LineFault(column: 8, message: "expect needs what to check: \(expectationForms)")
        }
        var rest = Array(words.dropFirst())
        var negated = false
        if head.text == "not", !head.quoted {
            guard let next = rest.first else { throw LineFault(column: head.column, message: "expect not needs owned, entitled or screen") }
            negated = true
            head = next
            rest.removeFirst()
            guard ["owned", "entitled", "screen"].contains(head.text) else {
                throw LineFault(column: head.column, message: "expect not takes owned, entitled or screen, not \"\(head.text)\"")
            }
        }
        func operands(_ count: Int, _ usage: String) throws(LineFault) {
            guard rest.count == count else {
                let column = rest.count > count ? rest[count].column : (rest.last.map { $0.end + 1 } ?? head.end + 1)
                throw LineFault(column: column, message: "expect \(head.text) takes \(usage)")
            }
        }
        func number(_ word: ScenarioWord) throws(LineFault) -> Int {
            guard let value = Int(word.text), value >= 0 else {
                throw LineFault(column: word.column, message: "expected a whole number, not \"\(word.text)\"")
            }
            return value
        }
        switch head.text {
        case "owned":
            try operands(1, "a PRODUCT_ID")
            return .owned(productID: rest[0].text, !negated)
        case "entitled":
            try operands(1, "a PRODUCT_ID")
            return .entitled(productID: rest[0].text, !negated)
        case "balance":
            try operands(2, "a PRODUCT_ID and a number")
            return .balance(productID: rest[0].text, try number(rest[1]))
        case "status":
            try operands(2, "a GROUP and a RenewalState: \(RenewalState.names.joined(separator: ", ")) or none")
            guard RenewalState.names.contains(rest[1].text) || rest[1].text == "none" else {
                throw LineFault(column: rest[1].column, message: "\"\(rest[1].text)\" is not a RenewalState: \(RenewalState.names.joined(separator: ", ")) or none")
            }
            return .status(group: rest[0].text, rest[1].text)
        case "renewal":
            try operands(3, "a GROUP, a field of its renewal info and a value")
            return .renewal(group: rest[0].text, field: rest[1].text, value: rest[2].text)
        case "transactions":
            try operands(2, "a PRODUCT_ID and a number")
            return .transactions(productID: rest[0].text, try number(rest[1]))
        case "transaction":
            try operands(3, "a transaction (LAST, $name or an id), a field and a value")
            let reference = rest[0]
            if reference.text.hasPrefix("$"), !reference.quoted, !captures.contains(String(reference.text.dropFirst())) {
                throw LineFault(column: reference.column, message: "\(reference.text) is not captured before this line")
            }
            guard isReference(reference) || Int64(reference.text) != nil else {
                throw LineFault(column: reference.column, message: "expect transaction needs LAST, $name or a transaction id, not \"\(reference.text)\"")
            }
            let value = rest[2]
            if value.text.hasPrefix("$"), !value.quoted, !captures.contains(String(value.text.dropFirst())) {
                throw LineFault(column: value.column, message: "\(value.text) is not captured before this line")
            }
            return .transaction(reference, field: rest[1].text, value: value)
        case "screen":
            try operands(1, "one \"TEXT\" (quote it)")
            guard !rest[0].text.isEmpty else { throw LineFault(column: rest[0].column, message: "expect screen needs some text") }
            return .screen(rest[0].text, !negated)
        case "output":
            try operands(1, "one \"TEXT\" (quote it)")
            return .output(rest[0].text)
        case "error":
            try operands(1, "a StoreKit error's name (networkError, paymentNotAllowed, …) or none")
            return .error(rest[0].text)
        case "setting":
            try operands(2, "a setting's NAME and VALUE")
            guard SettingDefinition.all.contains(where: { $0.name == rest[0].text }) else {
                throw LineFault(column: rest[0].column, message: "no setting \"\(rest[0].text)\"")
            }
            return .setting(name: rest[0].text, value: rest[1].text)
        case "notification":
            guard (1...2).contains(rest.count) else {
                throw LineFault(column: head.column, message: "expect notification takes a notificationType and an optional subtype (DID_RENEW, SUBSCRIBED INITIAL_BUY)")
            }
            for word in rest where word.text.isEmpty || !word.text.allSatisfy({ $0.isUppercase || $0 == "_" }) {
                throw LineFault(column: word.column, message: "\"\(word.text)\" is not a notificationType or subtype as Apple writes them (DID_RENEW, INITIAL_BUY)")
            }
            return .notification(type: rest[0].text, subtype: rest.count > 1 ? rest[1].text : nil)
        case "took":
            try operands(2, ">= DURATION (PT3S, or milliseconds: 1500ms)")
            guard rest[0].text == ">=" else { throw LineFault(column: rest[0].column, message: "expect took takes >= DURATION") }
            guard let seconds = seconds(rest[1].text) else {
                throw LineFault(column: rest[1].column, message: "\"\(rest[1].text)\" is not a duration such as PT3S or 1500ms")
            }
            return .took(atLeast: seconds)
        default:
            throw LineFault(column: head.column, message: "expect takes \(expectationForms); not \"\(head.text)\"")
        }
    }

    /// Seconds in `PT3S`-style ISO-8601 (hours, minutes, seconds) or `1500ms`.
    static func seconds(_ text: String) -> Double? {
        if text.hasSuffix("ms"), let milliseconds = Double(text.dropLast(2)) { return milliseconds / 1000 }
        guard let duration = ISODuration(text), duration.years == 0, duration.months == 0 else { return nil }
        let reference = Date(timeIntervalSince1970: 0)
        return duration.after(reference).timeIntervalSince(reference)
    }
}

extension RenewalState {
    /// StoreKit's names, as `status` prints them.
    static var names: [String] { allCases.map(\.rawValue) }
}
