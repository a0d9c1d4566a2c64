import Foundation
import Glibc
import StoreEngine

/// Wakes the notification sender when the store file is written, by this process or any other:
/// inotify on the file's folder, for the file and its write-ahead log. A commit is written before
/// it is synced and visible, so the sender then looks closely for a few milliseconds. Looking every
/// 5 ms cost 2.5 ms on average (and a read of the file 200 times a second, idle or not).
final class StoreFileWatcher: @unchecked Sendable {
    // The descriptor is read by the watching thread until `stopped` is set; then closed by it.
    private let descriptor: Int32
    private let names: Set<String>
    let wakeup = Wakeup()
    private let stopped = NSLock()
    private var isStopped = false

    /// Nil when inotify is not available (the sender then looks every few milliseconds).
    init?(storePath: String) {
        let file = URL(fileURLWithPath: storePath).resolvingSymlinksInPath()
        let folder = file.deletingLastPathComponent().path
        names = [file.lastPathComponent, file.lastPathComponent + "-wal"]
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, folder, UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)) >= 0 else {
            close(descriptor)
            return nil
        }
        let thread = Thread { [self] in watch() }
        thread.name = "storefront.serve.watcher"
        thread.start()
    }

    /// Stops watching; the thread closes the descriptor within 200 ms.
    func stop() { stopped.withLock { isStopped = true } }

    private func watch() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.withLock({ isStopped }) {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            if touchesStore(buffer, count: count) { wakeup.signal() }
        }
        close(descriptor)
    }

    /// Whether a batch of inotify events names the store file or its log.
    private func touchesStore(_ buffer: [UInt8], count: Int) -> Bool {
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
            let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
            let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
            if names.contains(String(decoding: nameBytes, as: UTF8.self)) { return true }
            offset += header + length
        }
        return false
    }
}

/// A wake-up call for an async loop: ``wait(timeout:)`` returns at the next ``signal()`` (at
/// once if one came since the last wait) or after the timeout, saying which.
final class Wakeup: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var pending = false
    private var waiter: CheckedContinuation<Bool, Never>?
    private var waiting = 0

    func signal() { wake(signalled: true) }

    /// True when woken by a signal, false when the time ran out.
    func wait(timeout: Duration) async -> Bool {
        let round = lock.withLock { () -> Int in
            waiting += 1
            return waiting
        }
        let (seconds, attoseconds) = timeout.components
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) { [weak self] in
            self?.timeOut(round)
        }
        return await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Bool in
                if pending {
                    pending = false
                    return true
                }
                waiter = continuation
                return false
            }
            if ready { continuation.resume(returning: true) }
        }
    }

    private func timeOut(_ round: Int) {
        let resumed = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard round == waiting, let waiter else { return nil }  // an older wait's timer
            self.waiter = nil
            return waiter
        }
        resumed?.resume(returning: false)
    }

    private func wake(signalled: Bool) {
        let resumed = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard let waiter else {
                pending = true
                return nil
            }
            self.waiter = nil
            return waiter
        }
        resumed?.resume(returning: signalled)
    }
}
