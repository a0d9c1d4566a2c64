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
}

extension SettingDefinition {
    /// Every setting the store knows, in the order `settings` lists them.
    public static let all: [SettingDefinition] = [
        SettingDefinition(
            name: "canMakePayments", scope: .account, defaultValue: "true",
            summary: "whether the account may buy (false: purchases fail with paymentNotAllowed)",
            normalize: { value, _ in boolean(value) }, allowed: { _ in "true or false" }),
        SettingDefinition(
            name: "storefront", scope: .store, defaultValue: "",
            summary: "the App Store country (alpha-3 code from the catalog); prices and currency follow",
            normalize: { value, catalog in catalog.storefront(value.uppercased())?.countryCode },
            allowed: { catalog in catalog.storefronts.map(\.countryCode).joined(separator: ", ") }),
    ]

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
}

/// A setting name or value the store does not accept.
public struct SettingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}
