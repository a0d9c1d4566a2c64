import Foundation
import Testing
@testable import StoreEngine

/// Schema 9's history revisions: each transaction's last change, the order of the Server API's histories.
@Suite("History revisions")
struct HistoryRevisionTests {
    @Test("a schema 8 file gets schema 9's revisions on opening, in id order; its rows keep their seals")
    func migratesEightToNine() async throws {
        try await withFamilyFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro"), faces = try await buy(store, "faces")
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            try db.execute("DROP TABLE history_revisions; ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal; PRAGMA user_version = 8;")
            let reopened = try fixture.open()
            #expect(try db.scalar("PRAGMA user_version") == Ledger.schemaVersion)
            let page = try #require(try await reopened.appStore.history(of: pro.id, query: HistoryQuery()))
            #expect(page.transactions.map(\.id) == [pro.id, faces.id], "in id order")
            #expect(try await reopened.app.transaction(id: pro.id).verification == .verified)
            // A change after the migration comes after every revision the migration gave.
            _ = try await reopened.appStore.refund(pro.id)
            let after = try #require(try await reopened.appStore.history(of: pro.id, query: HistoryQuery(), after: page.lastID))
            #expect(after.transactions.map(\.id) == [pro.id])
        }
    }

    @Test("a revision is never handed out twice: the latest change of the latest transaction still moves past a kept revision")
    func revisionsNeverRepeat() async throws {
        try await withFamilyFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let kept = try #require(try await store.appStore.history(of: pro.id, query: HistoryQuery())).lastID
            // The newest row changes: with a reused number (no AUTOINCREMENT) it would keep the revision the backend holds.
            _ = try await store.appStore.refund(pro.id)
            let page = try #require(try await store.appStore.history(of: pro.id, query: HistoryQuery(), after: kept))
            #expect(page.transactions.map(\.id) == [pro.id])
            #expect(try #require(page.lastID) > (kept ?? 0))
        }
    }
}
