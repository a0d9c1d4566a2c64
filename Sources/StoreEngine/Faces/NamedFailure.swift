/// An error as every front end says it: the CLI's `--json` error and exit code, a scenario's
/// `error` and the paywall's note all take its name and words from the error itself.
public protocol NamedFailure: Error, CustomStringConvertible {
    /// The name scripts match: StoreKit's case name where StoreKit has one (`productUnavailable`,
    /// `duplicateRequest`), else Storefront's (`familyError`, `accountExists`, `usage`).
    var name: String { get }
    /// Whether the caller asked for what cannot be taken (a usage error, exit 64) rather than
    /// being refused by the store (exit 1).
    var isUsage: Bool { get }
    /// What to do about it, said on a line after the message, where there is something to do.
    var hint: String? { get }
}

extension NamedFailure {
    public var isUsage: Bool { false }
    public var hint: String? { nil }
}

extension StoreError: NamedFailure {}

extension RefundRequestError: NamedFailure {}

extension FamilyError: NamedFailure {
    public var name: String { "familyError" }
}

extension SettingError: NamedFailure {
    public var name: String { "usage" }
    public var isUsage: Bool { true }
}
