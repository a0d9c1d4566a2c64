import Foundation

/// What a tester controls: settings, resets, the event log, accounts.
extension Store {
    // MARK: - Settings, resets, log

    /// The settings row that marks an error setting as `--once`.
    static let onceSuffix = ".once"

    /// Every setting with its value for this account.
    func settings() throws -> [SettingValue] {
        try SettingDefinition.all.map { definition in
            let (value, isSet) = try lookUp(definition)
            let onceMark = definition.acceptsOnce ? try ledger.setting(definition.name + Self.onceSuffix, account: "") : nil
            return SettingValue(name: definition.name, value: value, scope: definition.scope, isDefault: !isSet,
                                once: isSet && onceMark == "true")
        }
    }

    /// Changes a setting (for this account when the setting is per account).
    /// Returns the value as stored, normalized (`on` becomes `true`). With `once`
    /// (error settings only) the value applies to the next call, then clears itself.
    @discardableResult
    func setSetting(_ name: String, to value: String, once: Bool = false) throws -> String {
        guard let definition = SettingDefinition.named(name) else {
            throw SettingError(description: "unknown setting \"\(name)\"; known settings: \(SettingDefinition.all.map(\.name).joined(separator: ", "))")
        }
        if catalog.isAbsent, definition.id == .storefront {
            throw SettingError(description: "storefront: the storefronts are the catalog's; pass it with --catalog PATH")
        }
        guard let normalized = definition.normalize(value, catalog) else {
            throw SettingError(description: "\"\(value)\" is not a valid value for \(name); expected \(definition.allowed(catalog))")
        }
        guard !once || definition.acceptsOnce else {
            throw SettingError(description: "--once applies to the error settings only, not to \(name)")
        }
        try ledger.write {
            if [.billingIssues, .gracePeriod, .gracePeriodDuration, .gracePeriodRenewalType].contains(definition.id) {
                // Renewals that fell due before the change (nothing read since) bill as things were then.
                try processRenewals()
            }
            try ledger.ensureAccount(account, at: try currentTime())
            if definition.id == .timeRate {
                // The new rate runs from the store time reached so far: time never jumps.
                try anchorClock(storeTime: try currentTime())
            }
            try ledger.setSetting(name, account: scopeKey(definition), value: normalized)
            if once, normalized != definition.defaultValue {
                try ledger.setSetting(name + Self.onceSuffix, account: "", value: "true")
            } else if definition.acceptsOnce {
                try ledger.removeSetting(name + Self.onceSuffix, account: "")
            }
        }
        return normalized
    }

    /// Changes a setting to a typed value (see ``setSetting(_:to:once:)``).
    func set<Value>(_ key: SettingKey<Value>, to value: Value, once: Bool = false) throws {
        try setSetting(key.name.rawValue, to: key.encode(value), once: once)
    }

    /// A setting's typed value for this account: the stored value, else its default.
    func value<Value>(_ key: SettingKey<Value>) throws -> Value {
        key.decode(try storedValue(key.name.definition))
    }

    /// A setting's stored string, else its default.
    func storedValue(_ definition: SettingDefinition) throws -> String {
        try lookUp(definition).value
    }

    /// A setting's value, and whether the tester set it: what the tester set, else its default
    /// (``defaultValue(_:starting:)``). The two rows that may decide, the setting's and its
    /// starting value's, are read in one statement.
    func lookUp(_ definition: SettingDefinition) throws -> (value: String, isSet: Bool) {
        var keys = [(name: definition.name, account: scopeKey(definition))]
        // The storefront's default is the catalog's, never a starting value.
        if definition.id != .storefront { keys.append((Self.startingSetting(definition.name), "")) }
        let found = try ledger.firstSetting(of: keys)
        if let found, found.index == 0 { return (found.value, true) }
        return (defaultValue(definition, starting: found?.value), false)
    }

    /// Runs `body` with the clock's settings and `names`' (with their starting values) read first,
    /// in one statement: a check that needs the store's time and a setting or two makes one round
    /// trip for them, not one each (issue 44). Inside a write or read it just runs.
    func readingSettings<T>(_ names: [SettingName] = [], _ body: () throws -> T) throws -> T {
        let definitions = ([.timeRate] + names).map(\.definition)
        let settings = definitions.flatMap { [$0.name, Self.startingSetting($0.name)] } + [Self.anchorRealSetting, Self.anchorStoreSetting]
        let accounts = [""] + (definitions.contains { $0.scope == .account } ? [account] : [])
        return try ledger.readingSettings(settings, of: accounts, body)
    }

    func scopeKey(_ definition: SettingDefinition) -> String {
        definition.scope == .account ? account : ""
    }

    /// A setting's value until one is set: its starting value (`starting`, the value a catalog
    /// wrote into the store file: see `recordStartingSettings`), else what this catalog's starting
    /// settings map to (a file that could not be written), else the built-in default.
    func defaultValue(_ definition: SettingDefinition, starting: String?) -> String {
        if definition.id == .storefront { return catalog.defaultStorefront }
        if let starting { return starting }
        if let text = catalog.settingDefaults[definition.name], let value = definition.normalize(text, catalog) {
            return value
        }
        return definition.defaultValue
    }

    /// Wipes the app's side, this account, or the whole store file's contents. The catalog the
    /// store last ran with (``catalogFileSetting``) is kept: it is what the store runs with, not
    /// what a tester did, and a second terminal in another folder still finds it.
    func reset(_ scope: ResetScope) throws {
        try ledger.write {
            let catalogFile = scope == .all ? try ledger.setting(Self.catalogFileSetting, account: "") : nil
            try ledger.reset(scope, account: account)
            if let catalogFile { try ledger.setSetting(Self.catalogFileSetting, account: "", value: catalogFile) }
        }
    }

    /// The account's newest transaction state changes, oldest first.
    /// The newest `limit` events recorded, in the order they happened: by store date, then as
    /// recorded (renewals caught up late are recorded after events that came later by the clock).
    func events(limit: Int = 100) throws -> [TransactionEvent] {
        try ledger.events(account: account, limit: limit).sorted { ($0.date, $0.id) < ($1.date, $1.id) }
    }

    /// The sandbox accounts that have used this store file, oldest first.
    func accounts() throws -> [String] {
        try ledger.accounts()
    }

    /// Adds a sandbox tester with an empty history. False when it exists already.
    @discardableResult
    func createAccount(_ name: String) throws -> Bool {
        try ledger.write {
            guard try !ledger.accounts().contains(name) else { return false }
            try ledger.ensureAccount(name, at: try currentTime())
            return true
        }
    }

    /// Makes `name` the account used when none is named (`--account`), creating it
    /// when new. Returns a store for it; this one keeps its own account.
    func switchAccount(to name: String) throws -> Store {
        try ledger.write {
            try ledger.ensureAccount(name, at: try currentTime())
            try ledger.setSetting(Self.currentAccountSetting, account: "", value: name)
        }
        return try Store(catalog: catalog, path: address.location, account: name, now: now)
    }

    /// A name for a new tester that no account has yet: `tester2@local`, `tester3@local`, …
    func unusedTesterName() throws -> String {
        let taken = Set(try ledger.accounts())
        return (2...).lazy.map { "tester\($0)@local" }.first { !taken.contains($0) }!
    }

    /// The settings row that names the account used when none is named.
    static let currentAccountSetting = "currentAccount"

    /// A number that changes when another process commits to the store file.
    func dataVersion() throws -> Int64 {
        try ledger.dataVersion()
    }
}

/// The simulated conditions every call to the App Store goes through: latency, offline, errors.
extension Store {
    /// A simulated error setting's value, taken: a `--once` value is cleared in the same
    /// write transaction, so exactly one call, in whichever process, gets it.
    func takeSimulatedError(_ key: SettingKey<SimulatedError?>) throws -> (error: SimulatedError, cause: String)? {
        guard try value(key) != nil else { return nil }
        let name = key.name.rawValue
        return try ledger.write { () -> (error: SimulatedError, cause: String)? in
            // Read again under the write lock: another process may have taken a `--once` error meanwhile.
            guard let error = try value(key) else { return nil }
            guard try ledger.setting(name + Self.onceSuffix, account: "") == "true" else {
                return (error, "\(name) is \(error.rawValue)")
            }
            try ledger.removeSetting(name, account: "")
            try ledger.removeSetting(name + Self.onceSuffix, account: "")
            return (error, "\(name) is \(error.rawValue), once")
        }
    }

    /// A read-only call's simulated conditions: latency, then offline, then the setting's error.
    func simulateConditions(errorSetting key: SettingKey<SimulatedError?>) async throws {
        try await simulateLatency()
        if try value(.offline) { throw StoreError.simulated(.networkError, cause: "offline is true") }
        if let error = try takeSimulatedError(key) {
            try ledger.write {
                try ledger.log(.failed, account: account, productID: "",
                               detail: "\(key.name.rawValue): \(Self.logDetail(.simulated(error.error, cause: error.cause)))",
                               at: try currentTime())
            }
            throw StoreError.simulated(error.error, cause: error.cause)
        }
    }

    /// Waits the `latency` setting's time, as the App Store takes time to answer.
    /// The actor is free meanwhile: other calls go on.
    func simulateLatency() async throws {
        let latency = try value(.latency)
        if latency > .zero { try await Task.sleep(for: latency) }
    }
}
