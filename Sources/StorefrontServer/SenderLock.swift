import Foundation
import Glibc
import Synchronization

/// The right to send a store file's notifications: an exclusive `flock` on a file beside it
/// (`STORE-sender.lock`, holding the sender's pid), taken by one `serve` at a time. A second
/// `serve` on the same file serves the API but sends nothing, and takes over once the lock is free.
///
/// `flock` rather than a row in the store: the kernel drops it when its holder ends however it
/// ends (SIGKILL included), so there is no lease to expire and no clock to trust (the store's
/// moves); it needs no write to the store file (a full disk cannot steal it); and two opens
/// in one process conflict as two processes do (an `fcntl` lock would not), so two servers in
/// one test process behave as two `serve`s.
final class SenderLock: Sendable {
    let path: String
    /// The open lock file while this process holds the lock; -1 otherwise.
    private let descriptor = Mutex<Int32>(-1)

    init(storePath: String) {
        // Through symlinks: two servers naming one file by two paths share its lock.
        path = URL(fileURLWithPath: storePath).resolvingSymlinksInPath().path + "-sender.lock"
    }

    /// What taking the lock found.
    enum Outcome: Equatable {
        /// This process holds it now.
        case taken
        /// Another holds it (its pid, when it wrote one).
        case held(by: Int32?)
        /// The lock file cannot be made (a read-only folder): nobody can coordinate, so this one sends.
        case unavailable(String)
    }

    /// Takes the lock unless another process (or another server in this one) holds it.
    func take() -> Outcome {
        descriptor.withLock { held in
            if held >= 0 { return .taken }
            let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard file >= 0 else { return .unavailable(String(cString: strerror(errno))) }
            guard flock(file, LOCK_EX | LOCK_NB) == 0 else {
                var bytes = [UInt8](repeating: 0, count: 16)
                let count = read(file, &bytes, bytes.count)
                close(file)
                let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
                return .held(by: Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(file, 0)
            _ = pwrite(file, pid, pid.count, 0)
            held = file
            return .taken
        }
    }

    /// Lets the lock go (closing the file is what frees a `flock`).
    func release() {
        descriptor.withLock { held in
            guard held >= 0 else { return }
            _ = ftruncate(held, 0)
            close(held)
            held = -1
        }
    }

    deinit { release() }
}
