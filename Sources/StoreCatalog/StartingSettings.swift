// MARK: - A .storekit file's settings, applied

/// What a catalog's starting settings (a `.storekit` file's `settings`, products.json's
/// `startingSettings`, Xcode's names without the underscore) make of the store's
/// settings: the default of each setting they map to, and a note for each they cannot.
public struct StartingSettingDefaults: Sendable, Equatable {
    /// Setting name (`askToBuy`, `timeRate`, `purchaseError`, …) → its default value.
    public var defaults: [String: String] = [:]
    /// One sentence for each starting setting that was read another way or not applied.
    public var notes: [String] = []
}

extension StartingSettingDefaults {
    /// A setting's boolean as the settings write it (`true`, `yes`, `on`, `1`, …), or nil.
    package static func boolean(_ value: String) -> String? {
        switch value.lowercased() {
        case "true", "yes", "on", "1": "true"
        case "false", "no", "off", "0": "false"
        default: nil
        }
    }
}

extension StoreKitConfiguration {
    /// The starting settings that are switches: true or false, nothing else.
    static let switchSettings: Set<String> = ["askToBuyEnabled", "failTransactionsEnabled", "billingIssuesEnabled",
                                              "renewalBillingIssuesEnabled", "billingGracePeriodEnabled", "disableDialogs",
                                              "includeConsumablesInHistory"]

    /// A starting setting's value as text (nil for null), refused where it cannot mean what it
    /// says: a switch is `true` or `false` (also as text, as a written catalog keeps it), never
    /// `"yes"` read as true; `applicationInternalID` is digits, never an id with an escape dropped.
    package static func startingSettingText(_ name: String, _ node: Node) throws -> String? {
        guard let text = node.settingText() else { return nil }
        if switchSettings.contains(name), text != "true", text != "false" {
            throw node.fail("\(name) is true or false, not \(node.describe())")
        }
        if name == "applicationInternalID", !text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
            throw node.fail("applicationInternalID is the app's Apple ID in App Store Connect, digits only (such as \"1234567890\"), not \(node.describe())")
        }
        return text
    }

    /// Xcode's `_timeRate` numbers: the raw values of `SKTestSession.TimeRate`
    /// (`SKTestTimeRate`, an `NS_ENUM(NSInteger)`), as Apple's SDK header
    /// `StoreKitTest.framework/Headers/SKTestSession.h` declares them (Xcode 15 SDKs):
    /// `RealTime` 0, then the rates deprecated in iOS 15.2 — `OneHourIsOneDay` 1,
    /// `ThirtyMinutesIsOneDay` 2, `FiveMinutesIsOneDay` 3, `OneMinuteIsOneDay` 4,
    /// `ThirtySecondsIsOneDay` 5, `OneSecondIsOneDay` 6 —, `MonthlyRenewalEveryHour` = 10,
    /// `…ThirtyMinutes` 11, `…FifteenMinutes` 12, `…FiveMinutes` 13,
    /// `MonthlyRenewalEveryThirtySeconds` = 15, and (iOS 16.4) `OneRenewalEveryFifteenMinutes`
    /// = 1000, `…FiveMinutes` 1001, `…Minute` 1002, `…ThirtySeconds` 1003, `…TenSeconds`
    /// 1004, `OneRenewalEveryTwoSeconds` = 1005. The header names Apple's replacement for
    /// 4, 5 and 6 (`API_DEPRECATED_WITH_REPLACEMENT`), which is exact (30 one-minute days
    /// are 30 minutes); 1, 2 and 3 have none.
    static let xcodeTimeRates: [Int: TimeRate] = [
        0: .realTime,
        4: .monthlyRenewalEveryThirtyMinutes, 5: .monthlyRenewalEveryFifteenMinutes, 6: .monthlyRenewalEveryThirtySeconds,
        10: .monthlyRenewalEveryHour, 11: .monthlyRenewalEveryThirtyMinutes, 12: .monthlyRenewalEveryFifteenMinutes,
        13: .monthlyRenewalEveryFiveMinutes, 15: .monthlyRenewalEveryThirtySeconds,
        1000: .oneRenewalEveryFifteenMinutes, 1001: .oneRenewalEveryFiveMinutes, 1002: .oneRenewalEveryMinute,
        1003: .oneRenewalEveryThirtySeconds, 1004: .oneRenewalEveryTenSeconds, 1005: .oneRenewalEveryTwoSeconds,
    ]

    /// The deprecated day-based rates without a counterpart: a month in 30, 15 and 2.5 hours.
    static let daylongTimeRates = [1: "oneHourIsOneDay", 2: "thirtyMinutesIsOneDay", 3: "fiveMinutesIsOneDay"]

    /// Xcode's `_storeKitErrors` entries name a StoreKit API (`"name"`) and, when one is
    /// chosen, the error (`"current": {"type": …, "index": …}`), switched on by `"enabled"`:
    /// `{"current": {"index": 0, "type": "generic"}, "enabled": true, "name": "Load Products"}`.
    /// The APIs are StoreKitTest's `FailableStoreKitAPI`s (Xcode 15+): Load Products,
    /// Purchase, Verification, App Store Sync, Subscription Status, App Transaction,
    /// Manage Subscriptions Sheet, Refund Request Sheet, Offer Code Redeem Sheet. The types
    /// are the cases of StoreKitTest's `SKTestFailures` (StoreKitTest.swiftinterface):
    /// `generic(StoreKitError)`, `purchase(Product.PurchaseError)`,
    /// `verification(VerificationResult.VerificationError)`, `refundRequest(…)`. Apple
    /// documents no numbering for `index`: it is read as the position of the case in the
    /// error type's declaration in StoreKit, the order Xcode's menu lists them — an inference,
    /// so every error applied gets a note saying what it was read as.
    static let xcodeErrorAPIs: [String: (setting: String, types: Set<String>)] = [
        "Load Products": ("loadProductsError", ["generic"]),
        "Purchase": ("purchaseError", ["generic", "purchase"]),
        "Verification": ("verificationError", ["verification"]),
        "App Store Sync": ("restoreError", ["generic"]),
    ]

    /// The error cases by `current.type`, in StoreKit's declaration order (nil: not simulated here).
    static let xcodeErrorCases: [String: [SimulatedError?]] = [
        // StoreKitError: unknown, userCancelled, networkError, systemError, notAvailableInStorefront,
        // notEntitled, unsupported (iOS 18.4).
        "generic": [.unknown, .userCancelled, .networkError, .systemError, .notAvailableInStorefront, .notEntitled, .unsupported],
        "purchase": [.invalidQuantity, .productUnavailable, .purchaseNotAllowed, .ineligibleForOffer,
                     .invalidOfferIdentifier, .invalidOfferPrice, .invalidOfferSignature, .missingOfferParameters],
        "verification": [.revokedCertificate, .invalidCertificateChain, .invalidDeviceVerification, .invalidEncoding,
                         .invalidSignature, .missingRequiredProperties],
    ]

    /// The defaults a catalog's starting settings give the store's settings, and notes for
    /// what could not be applied. `place` names a starting setting in a note
    /// (`settings._timeRate` in a `.storekit` file, `startingSettings.timeRate` in products.json).
    public static func settingDefaults(from starting: [String: String],
                                       place: (String) -> String = { "settings._" + $0 }) -> StartingSettingDefaults {
        var result = StartingSettingDefaults()
        for (name, setting) in [("askToBuyEnabled", "askToBuy"), ("billingIssuesEnabled", "billingIssues"),
                                ("billingGracePeriodEnabled", "gracePeriod"),
                                ("includeConsumablesInHistory", "includeConsumablesInHistory")] {
            if let value = starting[name] { result.defaults[setting] = value }
        }
        // Xcode 26 writes _renewalBillingIssuesEnabled beside _billingIssuesEnabled (both false in a new file). Apple
        // documents neither; by its name it is renewals failing with a billing issue into billing retry
        // (SKTestSession.shouldEnterBillingRetryOnRenewal), which is what billingIssues does here. It was read by
        // no one, so a file that turned it on renewed as if it were off (issue 40). It wins; a note says when they differ.
        if let renewal = starting["renewalBillingIssuesEnabled"] {
            if let other = starting["billingIssuesEnabled"], other != renewal {
                result.notes.append("\(place("renewalBillingIssuesEnabled")) is \(renewal) and \(place("billingIssuesEnabled")) is \(other): "
                                    + "billingIssues is \(renewal), as the renewal setting says (renewals fail into billing retry)")
            }
            result.defaults["billingIssues"] = renewal
        }
        // A synced .storekit file's app (Xcode writes "0" or nothing for one that is not synced).
        if let text = starting["applicationInternalID"], let id = Int64(text), id > 0 {
            result.defaults["appAppleId"] = String(id)
        }
        if let text = starting["timeRate"] { applyTimeRate(text, at: place("timeRate"), to: &result) }
        if let text = starting["storeKitErrors"] { applyErrors(text, at: place("storeKitErrors"), to: &result) }
        if let text = starting["failTransactionsEnabled"], StartingSettingDefaults.boolean(text) == "true" {
            // Xcode 15 replaced it with _storeKitErrors, whose Purchase entry wins. Without one:
            // SKTestSession.failureError defaults to SKErrorUnknown, and the file keeps no other.
            if let chosen = result.defaults["purchaseError"] {
                result.notes.append("\(place("failTransactionsEnabled")) is on: purchases fail with \(chosen), the error the Purchase entry of \(place("storeKitErrors")) chose")
            } else {
                result.defaults["purchaseError"] = SimulatedError.unknown.rawValue
                result.notes.append("\(place("failTransactionsEnabled")) is on: purchases fail with unknown (Xcode's failureError default) until purchaseError is set")
            }
        }
        if let text = starting["disableDialogs"], StartingSettingDefaults.boolean(text) == "true" {
            result.notes.append("\(place("disableDialogs")) has no counterpart here: the CLI never asks, and the paywall's sheet stays")
        }
        return result
    }

    private static func applyTimeRate(_ text: String, at place: String, to result: inout StartingSettingDefaults) {
        if let named = TimeRate.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
            result.defaults["timeRate"] = named.rawValue
        } else if let number = Int(text), let rate = xcodeTimeRates[number] {
            result.defaults["timeRate"] = rate.rawValue
        } else if let number = Int(text), let old = daylongTimeRates[number] {
            result.defaults["timeRate"] = TimeRate.monthlyRenewalEveryHour.rawValue
            result.notes.append("\(place) \(number) is Xcode's \(old), which Apple withdrew without a replacement: the store starts at monthlyRenewalEveryHour, the nearest rate here")
        } else {
            result.notes.append("\(place) \(JSON.string(String(text.prefix(40))).serialized(pretty: false)) is not one of Xcode's time rates (0, 1–6, 10–13, 15, 1000–1005): the store starts in real time")
        }
    }

    private static func applyErrors(_ text: String, at place: String, to result: inout StartingSettingDefaults) {
        guard let list = try? JSON.parse(Array(text.utf8)), case .array(let entries) = list else {
            result.notes.append("\(place) is not a list of Xcode's error entries: no error is simulated from it")
            return
        }
        for (position, entry) in entries.enumerated() {
            let here = "\(place)[\(position)]"
            guard case .string(let api)? = entry["name"] else {
                result.notes.append("\(here) names no StoreKit API: ignored")
                continue
            }
            let quoted = JSON.string(String(api.prefix(40))).serialized(pretty: false)
            guard entry["enabled"] == .bool(true), let current = entry["current"], current != .null else { continue }
            guard let target = xcodeErrorAPIs[api] else {
                result.notes.append("\(here): errors of \(quoted) are not simulated here; only Load Products, Purchase, Verification and App Store Sync are")
                continue
            }
            guard case .string(let type)? = current["type"], case .number(let literal)? = current["index"],
                  let index = Int(literal) else {
                result.notes.append("\(here).current is not Xcode's {\"type\": …, \"index\": …}: no \(target.setting) from it")
                continue
            }
            guard target.types.contains(type), let cases = xcodeErrorCases[type], cases.indices.contains(index),
                  let error = cases[index] else {
                result.notes.append("\(here): Xcode's error \(index) of type \(JSON.string(String(type.prefix(20))).serialized(pretty: false)) for \(quoted) has no counterpart here: \(target.setting) stays none")
                continue
            }
            result.defaults[target.setting] = error.rawValue
            result.notes.append("\(here): \(quoted) fails with Xcode's \(type) error \(index), read as \(error.domain.rawValue).\(error.rawValue): \(target.setting) starts as \(error.rawValue)")
        }
    }
}
