/// The name of every setting the store knows: the compile-time list, in the order `settings` lists them.
public enum SettingName: String, Sendable, Hashable, CaseIterable {
    case canMakePayments, askToBuy, interruptedPurchases, finishTransactions, offline, latency
    case purchaseError, loadProductsError, restoreError, verificationError
    case timeRate, billingIssues, gracePeriod, gracePeriodDuration, gracePeriodRenewalType, storefront, environment
    case includeConsumablesInHistory
    case refundRequestOutcome
    case appAppleId
    case sharedSecret

    /// The setting's definition: scope, default, allowed values.
    public var definition: SettingDefinition { SettingDefinition.definition(of: self) }
}

/// A setting with the type of its value: `testSession.set(.askToBuy, to: true)`.
/// The string form stays for the CLI's `settings set NAME VALUE` and the store file.
public struct SettingKey<Value: Sendable>: Sendable {
    public let name: SettingName
    /// The typed value of a stored (normalized) string.
    let decode: @Sendable (String) -> Value
    /// The string stored for a value.
    let encode: @Sendable (Value) -> String
}

extension SettingKey where Value == Bool {
    private static func flag(_ name: SettingName) -> Self {
        Self(name: name, decode: { $0 == "true" }, encode: { String($0) })
    }
    public static let canMakePayments = flag(.canMakePayments)
    public static let askToBuy = flag(.askToBuy)
    public static let interruptedPurchases = flag(.interruptedPurchases)
    public static let finishTransactions = flag(.finishTransactions)
    public static let offline = flag(.offline)
    public static let billingIssues = flag(.billingIssues)
    public static let gracePeriod = flag(.gracePeriod)
    /// `Transaction.all` lists finished consumables too (Apple's `SKIncludeConsumableInAppPurchaseHistory`).
    public static let includeConsumablesInHistory = flag(.includeConsumablesInHistory)
}

extension SettingKey where Value == Int {
    /// The Billing Grace Period's length in days, as App Store Connect sets it: 3, 16 or 28.
    public static let gracePeriodDuration = Self(name: .gracePeriodDuration, decode: { Int($0) ?? 16 }, encode: { String($0) })
}

extension SettingKey where Value == GracePeriodRenewalType {
    /// Which renewals get the Billing Grace Period, as App Store Connect sets it.
    public static let gracePeriodRenewalType = Self(name: .gracePeriodRenewalType,
                                                    decode: { GracePeriodRenewalType(rawValue: $0) ?? .allRenewals }, encode: \.rawValue)
}

extension SettingKey where Value == Duration {
    /// How long the App Store takes to answer a load, purchase or restore (whole milliseconds).
    public static let latency = Self(name: .latency, decode: { .milliseconds(Int($0) ?? 0) },
                                     encode: { String($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) })
}

extension SettingKey where Value == SimulatedError? {
    private static func error(_ name: SettingName) -> Self {
        Self(name: name, decode: { SimulatedError(rawValue: $0) }, encode: { $0?.rawValue ?? "none" })
    }
    public static let purchaseError = error(.purchaseError)
    public static let loadProductsError = error(.loadProductsError)
    public static let restoreError = error(.restoreError)
    public static let verificationError = error(.verificationError)
}

extension SettingKey where Value == TimeRate {
    public static let timeRate = Self(name: .timeRate, decode: { TimeRate(rawValue: $0) ?? .realTime }, encode: \.rawValue)
}

extension SettingKey where Value == RefundRequestOutcome {
    /// What the App Store decides on a refund request from the app (`Transaction.beginRefundRequest`).
    public static let refundRequestOutcome = Self(name: .refundRequestOutcome,
                                                  decode: { RefundRequestOutcome(rawValue: $0) ?? .wait }, encode: \.rawValue)
}

extension SettingKey where Value == String {
    /// The storefront's alpha-3 country code.
    public static let storefront = Self(name: .storefront, decode: { $0 }, encode: { $0 })
    /// The app's shared secret verifyReceipt checks `password` against, for receipts with
    /// subscriptions (hexadecimal; empty: none on file, nothing checked).
    public static let sharedSecret = Self(name: .sharedSecret, decode: { $0 }, encode: { $0 })
}

extension SettingKey where Value == Int64? {
    /// The app's Apple ID (`appAppleId`), which Production's payloads carry; nil: none set.
    public static let appAppleId = Self(name: .appAppleId, decode: { Int64($0) }, encode: { $0.map(String.init) ?? "none" })
}

extension SettingKey where Value == Transaction.AppStoreEnvironment {
    /// The environment new transactions are signed for (their payloads' `environment`).
    public static let environment = Self(name: .environment, decode: { .init(appStoreName: $0) ?? .xcode },
                                         encode: \.appStoreName)
}

/// A simulated condition kept in the store file, set with `settings set NAME VALUE`.
public struct SettingDefinition: Sendable {
    /// Whether a setting belongs to the whole store file or to each account.
    public enum Scope: String, Sendable {
        case store
        case account
    }

    public var name: String { id.rawValue }
    public var id: SettingName
    public var scope: Scope
    public var defaultValue: String
    /// One line for `settings --help`.
    public var summary: String
    /// Checks and normalizes a value; returns nil (and names the allowed values in `allowed`) when invalid.
    let normalize: @Sendable (String, Catalog) -> String?
    /// The values allowed, for error messages.
    let allowed: @Sendable (Catalog) -> String
    /// Whether `--once` may limit the value to the next call (the error settings).
    public var acceptsOnce = false
    /// The values a menu offers, in order (a number setting offers a few useful ones).
    let listChoices: @Sendable (Catalog) -> [String]

    /// The values a settings screen cycles through.
    public func choices(in catalog: Catalog) -> [String] { listChoices(catalog) }

    /// The values allowed, as a sentence for people.
    public func allowedValues(in catalog: Catalog) -> String { allowed(catalog) }

    /// Whether `value` is allowed; the stored form when it is.
    public func normalized(_ value: String, in catalog: Catalog) -> String? { normalize(value, catalog) }
}

extension SettingDefinition {
    /// Every setting the store knows, in the order `settings` lists them.
    public static let all: [SettingDefinition] = SettingName.allCases.map(\.definition)

    /// The definition of `name`: a switch, so a setting without one does not compile.
    fileprivate static func definition(of name: SettingName) -> SettingDefinition {
        switch name {
        case .canMakePayments:
            flag(name, .account, default: true, "whether the account may buy (false: purchases fail with purchaseNotAllowed)")
        case .askToBuy:
            flag(name, .account, default: false,
                 "a child account: purchases wait for a parent (pending, deferred) until approve or decline")
        case .interruptedPurchases:
            flag(name, .store, default: false, "purchases stop pending, needing an action (terms to accept) until resolve")
        case .finishTransactions:
            flag(name, .store, default: true,
                 "false: the app \"crashes\" before finish(); the transaction is delivered again at next launch")
        case .offline:
            flag(name, .store, default: false, "no network: loading products, purchases and restore fail with networkError")
        case .latency:
            SettingDefinition(
                id: name, scope: .store, defaultValue: "0",
                summary: "milliseconds the App Store takes to answer a load, purchase or restore",
                normalize: { value, _ in Int(value).flatMap { (0...60_000).contains($0) ? String($0) : nil } },
                allowed: { _ in "a whole number of milliseconds, 0 to 60000" },
                listChoices: { _ in ["0", "400", "1000", "3000", "10000"] })
        case .purchaseError:
            error(name, [.storeKitError, .purchaseError], "the error Product.purchase() fails with")
        case .loadProductsError:
            error(name, [.storeKitError], "the error Product.products(for:) fails with")
        case .restoreError:
            error(name, [.storeKitError], "the error AppStore.sync() fails with")
        case .verificationError:
            error(name, [.verificationError], "purchased transactions reach the app unverified with this error")
        case .timeRate:
            SettingDefinition(
                id: name, scope: .store, defaultValue: TimeRate.realTime.rawValue,
                summary: "how fast the store's one clock runs, for every plan: realTime; monthlyRenewalEvery… (a month passes in "
                    + "that time); oneRenewalEvery… (the shortest plan's period does)",
                normalize: { value, _ in TimeRate.allCases.first { $0.rawValue.lowercased() == value.lowercased() }?.rawValue },
                allowed: { _ in TimeRate.allCases.map(\.rawValue).joined(separator: ", ") },
                listChoices: { _ in TimeRate.allCases.map(\.rawValue) })
        case .billingIssues:
            flag(name, .store, default: false,
                 "renewals fail to bill: the subscription enters billing retry (or grace) until it is false again")
        case .gracePeriod:
            flag(name, .store, default: false,
                 "a failed renewal keeps access for the Billing Grace Period (gracePeriodDuration) before retry")
        case .gracePeriodDuration:
            SettingDefinition(
                id: name, scope: .store, defaultValue: "16",
                summary: "the grace period's days, as App Store Connect offers them: 3, 16 or 28 (a weekly plan's at most 6)",
                normalize: { value, _ in GracePeriodRenewalType.durationDays(value).map(String.init) },
                allowed: { _ in "3, 16 or 28 (days; or THREE_DAYS, SIXTEEN_DAYS, TWENTY_EIGHT_DAYS)" },
                listChoices: { _ in ["3", "16", "28"] })
        case .gracePeriodRenewalType:
            SettingDefinition(
                id: name, scope: .store, defaultValue: GracePeriodRenewalType.allRenewals.rawValue,
                summary: "which failed renewals get the grace period: ALL_RENEWALS, or PAID_TO_PAID_ONLY (not a free offer's end)",
                normalize: { value, _ in GracePeriodRenewalType(rawValue: value.uppercased())?.rawValue },
                allowed: { _ in GracePeriodRenewalType.allCases.map(\.rawValue).joined(separator: ", ") },
                listChoices: { _ in GracePeriodRenewalType.allCases.map(\.rawValue) })
        case .storefront:
            SettingDefinition(
                id: name, scope: .store, defaultValue: "",
                summary: "the App Store country (alpha-3 code from the catalog); prices and currency follow",
                normalize: { value, catalog in catalog.storefront(value.uppercased())?.countryCode },
                allowed: { catalog in catalog.storefronts.map(\.countryCode).joined(separator: ", ") },
                listChoices: { catalog in catalog.storefronts.map(\.countryCode) })
        case .includeConsumablesInHistory:
            flag(name, .store, default: false,
                 "Transaction.all lists finished consumables too (Apple's SKIncludeConsumableInAppPurchaseHistory)")
        case .refundRequestOutcome:
            SettingDefinition(
                id: name, scope: .store, defaultValue: RefundRequestOutcome.wait.rawValue,
                summary: "a refund request from the app: wait (for refund-request approve|decline), approve or decline at once",
                normalize: { value, _ in RefundRequestOutcome(rawValue: value.lowercased())?.rawValue },
                allowed: { _ in RefundRequestOutcome.allCases.map(\.rawValue).joined(separator: ", ") },
                listChoices: { _ in RefundRequestOutcome.allCases.map(\.rawValue) })
        case .appAppleId:
            SettingDefinition(
                id: name, scope: .store, defaultValue: "none",
                summary: "the app's Apple ID (appAppleId) in Production's notifications and app transaction (none: not set)",
                normalize: { value, _ in value.lowercased() == "none" ? "none" : Int64(value).flatMap { $0 > 0 ? String($0) : nil } },
                allowed: { _ in "none or a positive number (App Store Connect's Apple ID of the app)" },
                listChoices: { _ in ["none"] })
        case .sharedSecret:
            SettingDefinition(
                id: name, scope: .store, defaultValue: "",
                summary: "the app's shared secret verifyReceipt wants as password for receipts with subscriptions (empty: none)",
                normalize: { value, _ in
                    value.count <= 64 && value.allSatisfy(\.isHexDigit) && value.allSatisfy(\.isASCII) ? value.lowercased() : nil
                },
                allowed: { _ in "a hexadecimal string of up to 64 digits (Apple's are 32), or empty for none" },
                listChoices: { _ in [""] })
        case .environment:
            SettingDefinition(
                id: name, scope: .store, defaultValue: "Xcode",
                summary: "the environment new transactions are signed for: Xcode, Sandbox, Production or LocalTesting",
                normalize: { value, _ in Transaction.AppStoreEnvironment(appStoreName: value)?.appStoreName },
                allowed: { _ in Transaction.AppStoreEnvironment.settingChoices.joined(separator: ", ") },
                listChoices: { _ in Transaction.AppStoreEnvironment.settingChoices })
        }
    }

    /// A true/false setting.
    private static func flag(_ name: SettingName, _ scope: Scope, default value: Bool, _ summary: String) -> SettingDefinition {
        SettingDefinition(id: name, scope: scope, defaultValue: String(value), summary: summary,
                          normalize: { value, _ in boolean(value) }, allowed: { _ in "true or false" },
                          listChoices: { _ in ["true", "false"] })
    }

    /// A setting that names a StoreKit error to simulate, or `none`; it may apply `--once`.
    private static func error(_ name: SettingName, _ domains: Set<SimulatedError.Domain>, _ summary: String) -> SettingDefinition {
        let names = SimulatedError.cases(in: domains).map(\.rawValue)
        return SettingDefinition(
            id: name, scope: .store, defaultValue: "none", summary: summary + " (none: no error)",
            normalize: { value, _ in value == "none" ? value : names.first { $0.lowercased() == value.lowercased() } },
            allowed: { _ in "none, " + names.joined(separator: ", ") }, acceptsOnce: true,
            listChoices: { _ in ["none"] + names })
    }

    /// The setting with this name (case-sensitive, as Apple spells it).
    public static func named(_ name: String) -> SettingDefinition? {
        SettingName(rawValue: name)?.definition
    }

    static func boolean(_ value: String) -> String? { StartingSettingDefaults.boolean(value) }
}

/// A setting's current value, for listing.
public struct SettingValue: Sendable, Hashable {
    public var name: String
    public var value: String
    public var scope: SettingDefinition.Scope
    public var isDefault: Bool
    /// Set with `--once`: the value applies to the next call only, then the setting returns to its default.
    public var once = false
}

/// A setting name or value the store does not accept.
public struct SettingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

extension Transaction.AppStoreEnvironment {
    /// The `environment` setting's values, the default first, as Apple's payloads spell them.
    static var settingChoices: [String] { [Self.xcode, .sandbox, .production, .localTesting].map(\.appStoreName) }
}
