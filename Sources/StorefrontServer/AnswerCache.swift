import Foundation
import StoreEngine
import Synchronization

/// Get Transaction Info answered on the connection's own thread while the store is unchanged:
/// its answer is a function of the store (the row's signed transaction), and the key that
/// verified the token is still the one registered. "Unchanged" is the store's version as a
/// connection of the cache's own reads it (``StoreVersionProbe``): it moves only once a commit
/// is visible, by any process or replica, on a file or on PostgreSQL. A request the cache
/// cannot answer goes the usual way, through the store, and its answer is kept under the
/// version read before that read: never an answer newer than its key, so never a stale one
/// after the next commit (a key on the file's `stat`, as before, moved when the log's frames
/// were written, before the commit was visible, and kept the old answer under the new key).
final class AnswerCache: Sendable {
    /// The store's version, as ``StoreVersionProbe`` reads it.
    typealias StoreState = [Int64]

    private let probe: StoreVersionProbe
    private let kept = Mutex<(state: StoreState?, keys: [APIKey]?, answers: [Int64: HTTPResponse])>((nil, nil, [:]))
    static let capacity = 4096

    /// A cache for the store at `address`; nil when the cache cannot open a connection of its own.
    init?(store address: StoreAddress) {
        guard let probe = StoreVersionProbe(address) else { return nil }
        self.probe = probe
    }

    /// The store's version now; nil when it cannot be read (then nothing is answered from the cache).
    func state() -> StoreState? { probe.version() }

    /// The kept answer for transaction `id` if the store is as it was, and the token's key is registered as it was.
    func answer(_ id: Int64, token: VerifiedTokens.Token, at state: StoreState) -> HTTPResponse? {
        kept.withLock { kept in
            guard kept.state == state, let keys = kept.keys,
                  keys.contains(where: { $0.keyID == token.keyID && $0.issuerID == token.issuerID
                                         && $0.publicKeyPEM == token.publicKeyPEM }) else { return nil }
            return kept.answers[id]
        }
    }

    /// Keeps what was read while the store was in `state` (taken before the read).
    func keep(keys: [APIKey]? = nil, answer: (id: Int64, response: HTTPResponse)? = nil, at state: StoreState?) {
        guard let state else { return }
        kept.withLock { kept in
            if kept.state != state { kept = (state, nil, [:]) }
            if let keys { kept.keys = keys }
            if let answer, kept.answers.count < Self.capacity { kept.answers[answer.id] = answer.response }
        }
    }
}
