/// A simulated condition kept in the store file, set with `settings set NAME VALUE`.
public struct SettingDefinition: Sendable {
    /// Whether a setting belongs to the whole store file or to each account.
    public enum Scope: String, Sendable {
        case store
        case account
    }

    public var name: String
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
    public static let all: [SettingDefinition] = [
        flag("canMakePayments", .account, default: true,
             "whether the account may buy (false: purchases fail with paymentNotAllowed)"),
        flag("askToBuy", .account, default: false,
             "a child account: purchases wait for a parent (pending, deferred) until approve or decline"),
        flag("interruptedPurchases", .store, default: false,
             "purchases stop pending, needing an action (terms to accept) until resolve"),
        flag("finishTransactions", .store, default: true,
             "false: the app \"crashes\" before finish(); the transaction is delivered again at next launch"),
        flag("offline", .store, default: false,
             "no network: loading products, purchases and restore fail with networkError"),
        SettingDefinition(
            name: "latency", scope: .store, defaultValue: "0",
            summary: "milliseconds the App Store takes to answer a load, purchase or restore",
            normalize: { value, _ in Int(value).flatMap { (0...60_000).contains($0) ? String($0) : nil } },
            allowed: { _ in "a whole number of milliseconds, 0 to 60000" }, listChoices: { _ in ["0", "400", "1000", "3000", "10000"] }),
        error("purchaseError", [.storeKitError, .purchaseError], "the error Product.purchase() fails with"),
        error("loadProductsError", [.storeKitError], "the error Product.products(for:) fails with"),
        error("restoreError", [.storeKitError], "the error AppStore.sync() fails with"),
        error("verificationError", [.verificationError],
              "purchased transactions reach the app unverified with this error"),
        SettingDefinition(
            name: "timeRate", scope: .store, defaultValue: TimeRate.realTime.rawValue,
            summary: "how fast the store's clock runs: realTime, monthlyRenewalEvery…, oneRenewalEvery…",
            normalize: { value, _ in TimeRate.allCases.first { $0.rawValue.lowercased() == value.lowercased() }?.rawValue },
            allowed: { _ in TimeRate.allCases.map(\.rawValue).joined(separator: ", ") },
            listChoices: { _ in TimeRate.allCases.map(\.rawValue) }),
        flag("billingIssues", .store, default: false,
             "renewals fail to bill: the subscription enters billing retry (or grace) until it is false again"),
        flag("gracePeriod", .store, default: false,
             "a failed renewal keeps access for Apple's grace period (6 days weekly, 16 longer) before retry"),
        SettingDefinition(
            name: "storefront", scope: .store, defaultValue: "",
            summary: "the App Store country (alpha-3 code from the catalog); prices and currency follow",
            normalize: { value, catalog in catalog.storefront(value.uppercased())?.countryCode },
            allowed: { catalog in catalog.storefronts.map(\.countryCode).joined(separator: ", ") },
            listChoices: { catalog in catalog.storefronts.map(\.countryCode) }),
        SettingDefinition(
            name: "environment", scope: .store, defaultValue: "Xcode",
            summary: "the environment new transactions are signed for: Xcode, Sandbox, Production or LocalTesting",
            normalize: { value, _ in Transaction.AppStoreEnvironment(appStoreName: value)?.appStoreName },
            allowed: { _ in "Xcode, Sandbox, Production, LocalTesting" },
            listChoices: { _ in ["Xcode", "Sandbox", "Production", "LocalTesting"] }),
    ]

    /// A true/false setting.
    private static func flag(_ name: String, _ scope: Scope, default value: Bool, _ summary: String) -> SettingDefinition {
        SettingDefinition(name: name, scope: scope, defaultValue: String(value), summary: summary,
                          normalize: { value, _ in boolean(value) }, allowed: { _ in "true or false" },
                          listChoices: { _ in ["true", "false"] })
    }

    /// A setting that names a StoreKit error to simulate, or `none`; it may apply `--once`.
    private static func error(_ name: String, _ domains: Set<SimulatedError.Domain>, _ summary: String) -> SettingDefinition {
        let names = SimulatedError.cases(in: domains).map(\.rawValue)
        return SettingDefinition(
            name: name, scope: .store, defaultValue: "none", summary: summary + " (none: no error)",
            normalize: { value, _ in value == "none" ? value : names.first { $0.lowercased() == value.lowercased() } },
            allowed: { _ in "none, " + names.joined(separator: ", ") }, acceptsOnce: true,
            listChoices: { _ in ["none"] + names })
    }

    /// The setting with this name (case-sensitive, as Apple spells it).
    public static func named(_ name: String) -> SettingDefinition? {
        all.first { $0.name == name }
    }

    static func boolean(_ value: String) -> String? {
        switch value.lowercased() {
        case "true", "yes", "on", "1": "true"
        case "false", "no", "off", "0": "false"
        default: nil
        }
    }
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
