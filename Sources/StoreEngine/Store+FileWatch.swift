import Foundation

extension Store {
    /// Why the file at the store's path is no longer the one this store has open (moved or renamed
    /// over, deleted, overwritten with another copy), or nil. Once it is so, every use of the store
    /// refuses with the same reason: a long-running process (serve, an app) asks this to stop.
    public func fileReplacement() -> String? {
        do {
            try ledger.checkFile()
            return nil
        } catch {
            return error.message
        }
    }
}
