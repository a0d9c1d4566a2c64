import Testing
@testable import StoreLedger

@Suite("Store file opening failures")
struct StoreFileOpeningFailureTests {
    @Test("a lock held past the timeout while the key loads or the schema migrates is busy, not damage",
          arguments: ["has an unusable signing key", "cannot be upgraded to the schema", "cannot be used"])
    func busyAtEveryStep(step: String) {
        let locked = DatabaseError(code: 5 /* SQLITE_BUSY */, message: "database is locked")
        let failure = Ledger.openingFailure(of: "/tmp/store.sqlite", step, locked)
        #expect(failure.isBusy)
        #expect(failure.reason == "is busy: database is locked")
        let sharedCache = DatabaseError(code: 6 /* SQLITE_LOCKED */, message: "database table is locked")
        #expect(Ledger.openingFailure(of: "/tmp/store.sqlite", step, sharedCache).isBusy)
    }

    @Test("any other failure keeps its step and is not busy")
    func otherFailures() {
        let damaged = DatabaseError(code: 11 /* SQLITE_CORRUPT */, message: "database disk image is malformed")
        let failure = Ledger.openingFailure(of: "/tmp/store.sqlite", "has an unusable signing key", damaged)
        #expect(!failure.isBusy)
        #expect(failure.reason == "has an unusable signing key: database disk image is malformed")
    }
}
