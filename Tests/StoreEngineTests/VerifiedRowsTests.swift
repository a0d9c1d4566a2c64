import Foundation
import Testing
@testable import StoreEngine
@testable import StoreLedger

/// The store remembers which rows it verified or signed (a mark bound to the row's seal), so a
/// new process need not check each signature again, and refuses exactly what it refused before.
@Suite("verified rows: marks bound to seals")
struct VerifiedRowsTests {
    /// Edits the store file as a person with `sqlite3` would: a plain connection, no engine.
    func edit(_ path: String, _ sql: String) throws { try SQLiteDatabase(path: path, create: false).execute(sql) }

    func seal(_ path: String, _ id: Int64) throws -> String {
        let db = try SQLiteDatabase(path: path, create: false)
        return try #require(try db.rows("SELECT seal FROM transactions WHERE id = ?", id) { $0.text(.seal) }.first)
    }

    func markCount(_ path: String, seal: String) throws -> Int64 {
        try SQLiteDatabase(path: path, create: false).scalar("SELECT count(*) FROM verified_rows WHERE row_seal = ?", seal) ?? 0
    }

    func setMark(_ path: String, id: Int64, seal: String, mark: String) throws {
        try SQLiteDatabase(path: path, create: false)
            .run("INSERT OR REPLACE INTO verified_rows (transaction_id, row_seal, mark) VALUES (?, ?, ?)", id, seal, mark)
    }

    @Test("a purchase and its delivery leave the row marked; an edit after the mark is still refused", .fileStoreOnly)
    func purchaseIsMarked() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            try await store.finish(pro)
            #expect(try markCount(fixture.path, seal: try seal(fixture.path, pro.id)) == 1, "the finished row keeps its mark")
            #expect(try await fixture.open().transaction(id: pro.id).verification == .verified)
            // Without its mark, the row is checked in full: what was signed is what the row says.
            try edit(fixture.path, "DELETE FROM verified_rows")
            #expect(try await fixture.open().transaction(id: pro.id).verification == .verified)
            try edit(fixture.path, "UPDATE transactions SET product_id = 'pass', product_type = 'nonRenewable' WHERE id = \(pro.id)")
            guard case .unverified(let reason) = try await fixture.open().transaction(id: pro.id).verification else {
                Issue.record("a row edited after its mark verified")
                return
            }
            #expect(reason.contains("does not match"))
        }
    }

    @Test("a sealed row with a bad JWS is refused; a mark of another row, or not made with the seal key, does not help; the store's own mark decides", .fileStoreOnly)
    func marksAreBound() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            try await store.finish(pro)
            let faces = try await buy(store, "faces")
            try await store.finish(faces)
            // A bad signature sealed as it stands, as the schema 6 migration sealed older rows.
            let jws = try #require(faces.jwsRepresentation)
            try edit(fixture.path, "UPDATE transactions SET jws = '\(jws.dropLast(2))AA' WHERE id = \(faces.id)")
            let ledger = try Ledger(path: fixture.path, bundleID: fixture.catalog.bundleID)
            try ledger.reseal(faces.id)
            let sealed = try seal(fixture.path, faces.id)
            #expect(try markCount(fixture.path, seal: sealed) == 0, "a plain reseal marks nothing")
            func verification() async throws -> Transaction.Verification {
                try await fixture.open().transaction(id: faces.id).verification
            }
            #expect(try await verification() != .verified)

            let proMark = ledger.mark(forSeal: try seal(fixture.path, pro.id))
            try setMark(fixture.path, id: faces.id, seal: sealed, mark: proMark)
            #expect(try await verification() != .verified, "another row's mark")
            let forged = Ledger.hex(Ledger.hmac(key: Array(repeating: 7, count: 32),
                                                Array("verified\n\(Ledger.verifiedMarkRule)\n\(fixture.catalog.bundleID)\n\(sealed)".utf8)))
            try setMark(fixture.path, id: faces.id, seal: sealed, mark: forged)
            #expect(try await verification() != .verified, "a mark made without the seal key")

            // The store's own mark is taken at its word: the signature is not checked again.
            try ledger.saveMark(id: faces.id, seal: sealed)
            #expect(try await verification() == .verified)
        }
    }

    @Test("finishing a row edited under its old seal and mark does not carry the mark to the new seal", .fileStoreOnly)
    func finishDoesNotBlessAnEdit() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")  // marked, unfinished
            let jws = try #require(pro.jwsRepresentation)
            try edit(fixture.path, "UPDATE transactions SET jws = '\(jws.dropLast(2))AA' WHERE id = \(pro.id)")
            let ledger = try Ledger(path: fixture.path, bundleID: fixture.catalog.bundleID)
            #expect(try ledger.markFinished(pro.id))
            guard case .unverified(let reason) = try await fixture.open().transaction(id: pro.id).verification else {
                Issue.record("an edited signature verified after the row was finished")
                return
            }
            #expect(reason.contains("signature"))
        }
    }

    @Test("a reset takes the marks of the rows it deletes", .fileStoreOnly)
    func resetForgetsMarks() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.finish(try await buy(store, "pro"))
            try await store.reset(.all)
            #expect(try SQLiteDatabase(path: fixture.path, create: false).scalar("SELECT count(*) FROM verified_rows") == 0)
        }
    }

    @Test("the keyed hasher gives the seal and HMAC of RFC 2104 that the doctor and older builds compute", .fileStoreOnly)
    func hasherMatchesTheSeal() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.finish(try await buy(store, "pro"))
            _ = try await buy(store, "faces")
            let ledger = try Ledger(path: fixture.path, bundleID: fixture.catalog.bundleID)
            var rows = 0
            try ledger.db.query("SELECT \(Ledger.columns) FROM transactions", []) { row in
                #expect(ledger.seal(of: row) == Ledger.seal(of: row, key: ledger.sealKey))
                #expect(ledger.isSealed(row))
                rows += 1
            }
            #expect(rows == 2)
            for message in [[], Array("head\n00".utf8), Array(repeating: UInt8(7), count: 5000)] {
                #expect(ledger.sealHasher.mac(message) == Ledger.hmac(key: ledger.sealKey, message))
            }
        }
    }
}

