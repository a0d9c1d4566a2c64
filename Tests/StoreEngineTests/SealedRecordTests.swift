import Foundation
import Testing
@testable import StoreEngine

/// Issue 43 (7): schema 10 seals what decides an entitlement or a balance beside the transactions
/// (each subscription's renewal state, each consumable's balance); an edited row is read as absent.
@Suite("Sealed records")
struct SealedRecordTests {
    private func edit(_ path: String, _ sql: String) throws {
        try SQLiteDatabase(path: path, create: false).execute(sql)
    }

    @Test("a schema 9 file gets its balances and subscriptions sealed as they stand, once; the doctor calls it healthy", .fileStoreOnly)
    func migratesNineToTen() async throws {
        try await withStoreFixture { fixture in
            let pro = try await buy(try fixture.open(), "pro")
            // A schema 9 file: no seal columns beside the transactions, a balance as a schema 9 build wrote it.
            try edit(fixture.path, """
                ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal;
                INSERT INTO app_balances (account, product_id, balance) VALUES ('\(Store.defaultAccount)', 'coins', 3);
                PRAGMA user_version = 9;
                """)
            let before = StoreDoctor.examine(path: fixture.path)
            #expect(before.isHealthy && before.schemaVersion == 9, "\(before.problems)")
            #expect(before.notes.contains { $0.message.contains("schema 10's seals") }, "\(before.notes)")
            let store = try fixture.open()
            #expect(try SQLiteDatabase(path: fixture.path, create: false).scalar("PRAGMA user_version") == Ledger.schemaVersion)
            #expect(try await store.balances()["coins"] == 3, "the balance it had")
            #expect(try await store.consume("coins") == 2)
            #expect(try await store.transaction(id: pro.id).verification == .verified)
            let after = StoreDoctor.examine(path: fixture.path)
            #expect(after.isHealthy && after.schemaVersion == Ledger.schemaVersion, "\(after.problems)")
            #expect(after.passed.contains("every subscription's renewal state and every balance sealed"), "\(after.passed)")
        }
    }

    @Test("a store in PostgreSQL of schema 9 gets schema 10's seals on opening, its balances as they stand", .postgreSQLOnly)
    func postgreSQLMigratesNineToTen() async throws {
        try await withStoreFixture { fixture in
            _ = try await buy(try fixture.open(), "pro")
            let db = try PostgreSQLStoreConnection(fixture.path)
            try db.execute("""
                ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal;
                INSERT INTO app_balances (account, product_id, balance) VALUES ('\(Store.defaultAccount)', 'coins', 3);
                UPDATE storefront_store SET schema_version = 9;
                """)
            let before = StoreDoctor.examine(path: fixture.path)
            #expect(before.isHealthy && before.schemaVersion == 9, "\(before.problems)")
            let store = try fixture.open()
            #expect(try db.scalar("SELECT schema_version FROM storefront_store") == Ledger.schemaVersion)
            #expect(try await store.balances()["coins"] == 3, "the balance it had")
            #expect(try await store.consume("coins") == 2)
            let after = StoreDoctor.examine(path: fixture.path)
            #expect(after.isHealthy && after.schemaVersion == Ledger.schemaVersion, "\(after.problems)")
            #expect(after.passed.contains("every subscription's renewal state and every balance sealed"), "\(after.passed)")
        }
    }

    @Test("an edited balance is none: nothing to consume, the doctor names the row, the next delivery starts from 0", .fileStoreOnly)
    func anEditedBalanceIsNone() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "coins")
            _ = try await store.deliverUnfinished()
            #expect(try await store.balances()["coins"] == 1)
            try edit(fixture.path, "UPDATE app_balances SET balance = 1000")
            #expect(try await store.balances()["coins"] == nil)
            await #expect(throws: StoreError.self) { try await store.consume("coins") }
            let checkup = StoreDoctor.examine(path: fixture.path)
            #expect(checkup.problems.map(\.check) == ["records"], "\(checkup.problems)")
            #expect(checkup.problems.first?.message.contains("app_balances (account '\(Store.defaultAccount)', product_id 'coins')") == true,
                    "\(checkup.problems)")
            _ = try await buy(store, "coins")
            _ = try await store.deliverUnfinished()
            #expect(try await store.balances()["coins"] == 1, "from 0, not from the edit")
            #expect(StoreDoctor.examine(path: fixture.path).isHealthy)
        }
    }

    @Test("a balance put back as it was before it was spent (its old seal) does not add up to the sealed head", .fileStoreOnly)
    func aBalancePutBackDoesNotAddUp() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "coins", quantity: 3)
            _ = try await store.deliverUnfinished()
            try edit(fixture.path, "CREATE TABLE saved AS SELECT * FROM app_balances")
            #expect(try await store.consume("coins", quantity: 3) == 0)
            try edit(fixture.path, "DELETE FROM app_balances; INSERT INTO app_balances SELECT * FROM saved; DROP TABLE saved")
            #expect(StoreDoctor.examine(path: fixture.path).problems.map(\.check) == ["head"])
        }
    }

    @Test("the app's owned product put on another product's transaction grants nothing", .fileStoreOnly)
    func anOwnedRowOnAnotherProductsTransactionGrantsNothing() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro")
            _ = try await store.deliverUnfinished()
            try edit(fixture.path, """
                INSERT INTO app_owned (account, product_id, transaction_id)
                SELECT account, 'faces', transaction_id FROM app_owned WHERE product_id = 'pro'
                """)
            #expect(try await store.ownedProducts().keys.sorted() == ["pro"])
        }
    }
}
