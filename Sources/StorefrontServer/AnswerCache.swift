import Foundation
import Glibc
import StoreEngine
import Synchronization

/// Get Transaction Info answered on the connection's own thread while the store file is
/// unchanged: its answer is a function of the file (the row's signed transaction), and the
/// key that verified the token is still the one registered. "Unchanged" is the file and its
/// write-ahead log as `stat` sees them (inode, size, modification time to the nanosecond): any
/// commit, by any process, writes the log. A request the cache cannot answer goes the usual
/// way — through the store — and its answer is kept for the file as it was before the read.
final class AnswerCache: Sendable {
    /// The store file and its log as `stat` sees them.
    struct FileState: Equatable, Sendable {
        var database: [Int]
        var log: [Int]
    }

    private let database: String
    private let log: String
    private let kept = Mutex<(state: FileState?, keys: [APIKey]?, answers: [Int64: HTTPResponse])>((nil, nil, [:]))
    static let capacity = 4096

    init(storePath: String) {
        let file = URL(fileURLWithPath: storePath).resolvingSymlinksInPath().path
        (database, log) = (file, file + "-wal")
    }

    /// The file's state now; nil when it cannot be read (then nothing is answered from the cache).
    func state() -> FileState? {
        func identity(_ path: String) -> [Int]? {
            var info = stat()
            guard stat(path, &info) == 0 else { return path == log ? [] : nil }  // no log yet: nothing written
            return [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec,
                    info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
        }
        guard let database = identity(database), let log = identity(log) else { return nil }
        return FileState(database: database, log: log)
    }

    /// The kept answer for transaction `id` if the file is as it was, and the token's key is registered as it was.
    func answer(_ id: Int64, token: VerifiedTokens.Token, at state: FileState) -> HTTPResponse? {
        kept.withLock { kept in
            guard kept.state == state, let keys = kept.keys,
                  keys.contains(where: { $0.keyID == token.keyID && $0.issuerID == token.issuerID
                                         && $0.publicKeyPEM == token.publicKeyPEM }) else { return nil }
            return kept.answers[id]
        }
    }

    /// Keeps what was read while the file was in `state` (taken before the read).
    func keep(keys: [APIKey]? = nil, answer: (id: Int64, response: HTTPResponse)? = nil, at state: FileState?) {
        guard let state else { return }
        kept.withLock { kept in
            if kept.state != state { kept = (state, nil, [:]) }
            if let keys { kept.keys = keys }
            if let answer, kept.answers.count < Self.capacity { kept.answers[answer.id] = answer.response }
        }
    }
}
