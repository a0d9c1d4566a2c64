/// How far a store file's commits are on the disk when a write returns.
public enum Durability: Sendable {
    /// Each commit is on the disk before the write returns (`PRAGMA synchronous = FULL`): the store
    /// survives a killed process, an operating system crash and a power loss. Every store a user opens.
    case full
    /// Each commit is handed to the operating system, never waited for on the disk
    /// (`PRAGMA synchronous = OFF`): a killed process loses nothing, but an operating system crash
    /// or a power loss may lose the last commits or damage the file. A test session's store, which
    /// lives as long as one test, takes no fsync.
    case processCrashSafe

    /// The `PRAGMA synchronous` value of a connection with this durability.
    var synchronous: String {
        switch self {
        case .full: "FULL"
        case .processCrashSafe: "OFF"
        }
    }
}
