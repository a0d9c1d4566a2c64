import Foundation
import Testing
@testable import StoreEngine

/// A setting's value: what the tester set, else its starting value, else its built-in default —
/// however it is read (alone, ahead for a check, inside a read or a write) — and what reading it costs.
@Suite struct SettingPrecedenceTests {
    @Test(arguments: [SettingName.billingIssues, .askToBuy])
    func theTestersValueComesBeforeTheStartingValueBeforeTheDefault(_ name: SettingName) async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let builtIn = name.definition.defaultValue
            let other = builtIn == "true" ? "false" : "true"
            // Nothing set: the built-in default, as a default.
            #expect(try await store.readings(name) == Readings(all: builtIn, isDefault: true))
            // A catalog's starting value: it, still as a default.
            try await store.setRows(name, starting: other, tester: nil)
            #expect(try await store.readings(name) == Readings(all: other, isDefault: true))
            // The tester's value, the same as the built-in default, wins over the starting value.
            try await store.setRows(name, starting: other, tester: builtIn)
            #expect(try await store.readings(name) == Readings(all: builtIn, isDefault: false))
            // The tester's, with no starting value.
            try await store.setRows(name, starting: nil, tester: other)
            #expect(try await store.readings(name) == Readings(all: other, isDefault: false))
        }
    }

    @Test func anotherAccountsValueIsNotThisAccounts() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setRows(.askToBuy, starting: "true", tester: nil)
            try await fixture.open(account: "other@local").setRows(.askToBuy, starting: "true", tester: "false")
            #expect(try await store.readings(.askToBuy) == Readings(all: "true", isDefault: true))
        }
    }

    /// Issue 44: outside a write, a renewal check read the clock's and billing's settings one
    /// statement each (five; three checks a CLI purchase), a setting and its starting value two.
    @Test func aRenewalCheckTheClockAndASettingEachReadSettingsInOneStatement() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.processRenewals()
            let counts = try await store.settingQueriesOfReads()
            #expect(counts == ["renewal check": 1, "store time": 1, "latency": 1])
        }
    }
}

/// A setting's value read every way the engine reads one, and whether `settings` lists it as a default.
struct Readings: Equatable {
    var alone, readAhead, inRead, inWrite, listed: String
    var isDefault: Bool

    /// The same value every way.
    init(all value: String, isDefault: Bool) {
        (alone, readAhead, inRead, inWrite, listed) = (value, value, value, value, value)
        self.isDefault = isDefault
    }

    init(alone: String, readAhead: String, inRead: String, inWrite: String, listed: String, isDefault: Bool) {
        (self.alone, self.readAhead, self.inRead, self.inWrite, self.listed) = (alone, readAhead, inRead, inWrite, listed)
        self.isDefault = isDefault
    }
}

extension Store {
    /// Writes setting `name`'s rows: its starting value, as a catalog records it, and the
    /// tester's for this account (nil: none).
    fileprivate func setRows(_ name: SettingName, starting: String?, tester: String?) throws {
        let definition = name.definition
        try ledger.write {
            let startingName = Self.startingSetting(definition.name)
            if let starting { try ledger.setSetting(startingName, account: "", value: starting) }
            else { try ledger.removeSetting(startingName, account: "") }
            if let tester { try ledger.setSetting(definition.name, account: scopeKey(definition), value: tester) }
            else { try ledger.removeSetting(definition.name, account: scopeKey(definition)) }
        }
    }

    fileprivate func readings(_ name: SettingName) throws -> Readings {
        let definition = name.definition
        let listed = try #require(try settings().first { $0.name == definition.name })
        return Readings(alone: try storedValue(definition),
                        readAhead: try readingSettings([name]) { try storedValue(definition) },
                        inRead: try ledger.read { try storedValue(definition) },
                        inWrite: try ledger.write { try storedValue(definition) },
                        listed: listed.value, isDefault: listed.isDefault)
    }

    /// How many statements read settings in each of: a renewal check, the store's time, a setting's value.
    fileprivate func settingQueriesOfReads() throws -> [String: Int] {
        func counting(_ body: () throws -> Void) throws -> Int {
            let before = ledger.settingQueries
            try body()
            return ledger.settingQueries - before
        }
        return ["renewal check": try counting { _ = try processRenewals(onlyAccount: account) },
                "store time": try counting { _ = try currentTime() },
                "latency": try counting { _ = try value(.latency) }]
    }
}
