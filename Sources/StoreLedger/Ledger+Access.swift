import StoreSigning

/// The ledger's interface to the engine, as `pager.h` is SQLite's: atomic writes and
/// consistent reads around typed calls. The engine never sees a connection, a statement or
/// a dialect; what it reads and writes inside are the ledger's typed methods.
extension Ledger {
    // MARK: - Writes and reads

    /// Runs `body` as one atomic write: every change it makes is committed together, or none
    /// is. The write lock is taken up front, so two processes never deadlock upgrading a read.
    /// Inside another write it joins that one.
    /// - Parameter durable: false for a record that may be made again, never a purchase: a
    ///   killed process loses nothing, a power cut may lose it.
    package func write<T>(durable: Bool = true, _ body: () throws -> T) throws -> T {
        // Settings read ahead are not kept across a write (``readingSettings(_:of:_:)``).
        settingsRead = nil
        return try remembering { try db.transaction(durable: durable, body) }
    }

    /// Runs `body` on one state of the store: every read in it sees the same commit, however
    /// other processes write meanwhile. Inside a write or another read it just runs.
    package func read<T>(_ body: () throws -> T) throws -> T {
        try remembering { try db.read(body) }
    }

    /// Runs a write or read with the settings remembered for its length (a purchase reads
    /// some fifty, each a round trip on PostgreSQL). A failed inner write may have rolled back
    /// settings it changed: they are read again.
    private func remembering<T>(_ body: () throws -> T) throws -> T {
        let outermost = settingsMemo == nil
        if outermost { settingsMemo = SettingsMemo() }
        defer { if outermost { settingsMemo = nil } }
        do {
            return try body()
        } catch {
            if !outermost { settingsMemo = SettingsMemo() }
            throw error
        }
    }

    /// How many rows this ledger has inserted, updated or deleted since it opened: the change
    /// feed tells its own writes (renewals it made) from other processes' commits by it.
    package var ownChanges: Int64 { db.totalChanges }

    // MARK: - Signing

    /// The store's signing key with its certificate chain, as the store keeps it: the engine
    /// takes it once, when it opens the store, and signs and verifies with it.
    package var signingIdentity: SigningIdentity { key }
}
