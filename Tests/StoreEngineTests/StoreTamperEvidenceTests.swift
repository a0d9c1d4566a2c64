import Foundation
import Testing
@testable import StoreEngine

/// Runs `sql` on the file at `path` as sqlite3 would (one connection, closed after).
private func edit(_ path: String, _ sql: String) throws {
    let db = try SQLiteDatabase(path: path, create: false)
    try db.execute(sql)
}

private func checks(_ checkup: StoreCheckup) -> [String] { checkup.problems.map(\.check) }

/// Issue 30 (7, 16): a `user_version` set back by hand neither launders an edit through the
/// migration (which sealed every row again) nor makes every open fail; the doctor says what it is.
@Suite("Store file tamper evidence")
struct StoreTamperEvidenceTests {
    /// `finished=0` on a delivered consumable, then `PRAGMA user_version=5`: the migration sealed the
    /// edited row again, so it verified, was delivered a second time, and the doctor said Healthy.
    @Test(.fileStoreOnly) func anEditUnderALoweredVersionIsNotResealed() async throws {
        try await withStoreFixture { fixture in
            let id: Int64
            let balance: Int?
            do {
                let store = try fixture.open()
                id = try await buy(store, "coins").id
                _ = try await store.deliverUnfinished()
                balance = try await store.balances()["coins"]
            }
            #expect(balance == 1)
            try edit(fixture.path, "UPDATE transactions SET finished = 0 WHERE id = \(id); PRAGMA user_version = 5")
            let before = StoreDoctor.examine(path: fixture.path)
            #expect(!before.isHealthy && checks(before).contains("unverified") && checks(before).contains("schema"), "\(before.problems)")
            #expect(before.problems.first { $0.check == "schema" }?.message.contains("set back by hand") == true)

            let store = try fixture.open()  // migrates
            _ = try await store.deliverUnfinished()
            #expect(try await store.balances()["coins"] == 1, "the edited consumable was delivered again")
            #expect(try await store.unfinished().first { $0.id == id }?.verification.isVerified == false)
            let after = StoreDoctor.examine(path: fixture.path)
            #expect(after.schemaVersion == Ledger.schemaVersion)
            #expect(!after.isHealthy, "the doctor says Healthy after the migration")
            #expect(after.problems.first { $0.check == "unverified" }?.transactionIDs == [id], "\(after.problems)")
        }
    }

    /// A refund undone by putting the row back as it was (its old JWS and seal) no longer adds up to
    /// the sealed head; a lowered version made the migration fold the head again, and hid it.
    @Test(.fileStoreOnly) func anUndoneRefundIsStillFoundAfterTheMigration() async throws {
        try await withStoreFixture { fixture in
            do {
                let store = try fixture.open()
                let pro = try await buy(store, "pro")
                try edit(fixture.path, "CREATE TABLE saved AS SELECT * FROM transactions WHERE id = \(pro.id)")
                _ = try await store.refund(pro.id)
            }
            try edit(fixture.path, """
                DELETE FROM transactions WHERE id IN (SELECT id FROM saved);
                INSERT INTO transactions SELECT * FROM saved;
                DROP TABLE saved;
                PRAGMA user_version = 5;
                """)
            #expect(checks(StoreDoctor.examine(path: fixture.path)).contains("head"))
            _ = try fixture.open()  // migrates
            let after = StoreDoctor.examine(path: fixture.path)
            #expect(after.schemaVersion == Ledger.schemaVersion)
            #expect(checks(after).contains("head"), "the undone refund was laundered: \(after.problems)")
        }
    }

    /// A `user_version` of 0 or 1 on a store file: every open failed (a CREATE TABLE over tables there
    /// are, a column added twice) while the doctor called it migratable. Now the doctor names the edit,
    /// the store opens as what its columns are, and afterwards the file is whole again.
    @Test(.fileStoreOnly, arguments: [0, 1])
    func aVersionSetTo0Or1IsCalledWhatItIs(version: Int) async throws {
        try await withStoreFixture { fixture in
            do { _ = try await buy(try fixture.open(), "pro") }
            try edit(fixture.path, "PRAGMA user_version = \(version)")
            let before = StoreDoctor.examine(path: fixture.path)
            #expect(!before.isHealthy && checks(before) == ["schema"], "\(before.problems)")
            #expect(before.problems.first?.message.contains("its user_version is \(version), but its columns are schema 10's or later") == true)
            #expect(!before.notes.contains { $0.check == "schema" }, "called migratable: \(before.notes)")
            let store = try fixture.open()
            #expect(try await store.transactions().map(\.productID) == ["pro"])
            #expect(try await store.transactions().allSatisfy(\.verification.isVerified))
            let after = StoreDoctor.examine(path: fixture.path)
            #expect(after.isHealthy && after.schemaVersion == Ledger.schemaVersion, "\(after.problems)")
        }
    }
}
