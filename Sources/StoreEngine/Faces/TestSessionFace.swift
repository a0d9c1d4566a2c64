import Foundation

/// The test session's face of the store: what a tester controls, as Xcode's `SKTestSession`.
///
/// Conditions (Ask to Buy, interrupted purchases, offline, latency), simulated errors
/// per API, billing issues and grace periods, the storefront, the clock and its rate,
/// sandbox accounts and resets. Settings are typed (``SettingKey``); their string form
/// serves the CLI's `settings set NAME VALUE`.
public struct TestSessionFace: Sendable {
    let store: Store

    /// The account the session acts for.
    public var account: String { store.account }
    /// The catalog the store sells from.
    public var catalog: Catalog { store.catalog }
    /// The store file's path.
    public var path: String { store.path }

    // MARK: - Settings

    /// A setting's typed value: `try await session.value(.askToBuy)`.
    public func value<Value>(_ key: SettingKey<Value>) async throws -> Value { try await store.value(key) }

    /// Sets a setting: `try await session.set(.askToBuy, to: true)`. `once` (error settings
    /// only) makes the value apply to the next call, then clear itself.
    public func set<Value>(_ key: SettingKey<Value>, to value: Value, once: Bool = false) async throws {
        try await store.set(key, to: value, once: once)
    }

    /// Every setting with its value, for listing.
    public func settings() async throws -> [SettingValue] { try await store.settings() }

    /// Sets a setting from its string form (`settings set NAME VALUE`); returns the value as
    /// stored. Throws ``SettingError`` for an unknown name or a value it does not allow.
    @discardableResult
    public func setSetting(_ name: String, to value: String, once: Bool = false) async throws -> String {
        try await store.setSetting(name, to: value, once: once)
    }

    // MARK: - The clock

    /// The store's time now and how fast it runs.
    public func clock() async throws -> (now: Date, rate: TimeRate) { try await store.clock() }

    /// Moves the store's clock ahead, then makes the renewals that fell due. Returns the new time.
    @discardableResult
    public func advanceClock(by duration: ISODuration) async throws -> Date { try await store.advanceClock(by: duration) }

    /// Moves the store's clock ahead and makes what fell due: the new time, and the renewals made
    /// and failed and the subscriptions expired (every account's), which `clock advance` reports.
    public func advanceClockReporting(by duration: ISODuration) async throws -> ClockAdvance {
        try await store.advanceClockReporting(by: duration)
    }

    // MARK: - Accounts and resets

    /// The sandbox accounts that have used this store file, oldest first.
    public func accounts() async throws -> [String] { try await store.accounts() }

    /// Adds a sandbox tester with an empty history; false when it exists already.
    @discardableResult
    public func createAccount(_ name: String) async throws -> Bool { try await store.createAccount(name) }

    /// Makes `name` the account used when none is named, creating it when new; returns its store.
    public func switchAccount(to name: String) async throws -> Store { try await store.switchAccount(to: name) }

    /// A name no account has yet: `tester2@local`, `tester3@local`, …
    public func unusedTesterName() async throws -> String { try await store.unusedTesterName() }

    /// Wipes the app's side, this account, or the whole store file's contents.
    public func reset(_ scope: ResetScope) async throws { try await store.reset(scope) }

    /// The account's StoreKit 1 event log, oldest first.
    public func events(limit: Int = 100) async throws -> [TransactionEvent] { try await store.events(limit: limit) }

    /// A number that changes when another process commits to the store file.
    public func dataVersion() async throws -> Int64 { try await store.dataVersion() }
}
