import CCurl
import Dispatch
import Foundation
import StoreEngine
import Synchronization

/// Delivers the store's notifications to each receiver URL, as the App Store does: a
/// `responseBodyV2` POSTed, a 2xx (200–206) ends it, anything else is retried 1, 12, 24, 48
/// and 72 hours after the previous attempt (store time). Each URL gets them in the order
/// they were made: a later one waits while an earlier one is being retried.
///
/// The POSTs are libcurl's, loaded when the first is sent (CCurl): not URLSession, whose
/// FoundationNetworking links curl and ~25 libraries into every start of the executable
/// (8 ms and 7 MB of the paywall's first paint, which never sends anything).
final class NotificationSender: @unchecked Sendable {
    // Immutable after init; the idle curl handles are behind their mutex.
    let face: AppStoreFace
    /// The `--notify` URLs; when empty, the receivers kept in the store, read again each round.
    let urls: [String]
    let timeout: TimeInterval
    let log: @Sendable (String) -> Void
    /// Easy handles between POSTs, which keep their connections to the receivers open.
    private let idle = Mutex<[CurlHandle]>([])

    /// A curl easy handle: used by one thread at a time, kept in `idle` between uses.
    private struct CurlHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    init(face: AppStoreFace, urls: [String], timeout: TimeInterval = 10, log: @escaping @Sendable (String) -> Void) {
        self.face = face
        self.urls = urls
        self.timeout = timeout
        self.log = log
    }

    deinit {
        for handle in idle.withLock({ $0 }) { storefront_curl_release(handle.pointer) }
    }

    /// Makes what the clock has made due and sends what waits, until cancelled: a round every
    /// `interval` (renewals made due by the clock, retries), and at once when a notification has
    /// been recorded. With `watcher`, it looks each time the store file is written, and every
    /// `closely` for `afterWrite` after (a commit is written before it is synced and visible);
    /// without one, every `wake` (one indexed read tells whether anything is new).
    func run(interval: Duration = .milliseconds(100), wake: Duration = .milliseconds(5),
             watcher: StoreFileWatcher? = nil) async {
        let clock = ContinuousClock()
        var newest: Int64 = -1
        var lastRound = clock.now - interval
        var lastWrite = clock.now - interval
        while !Task.isCancelled {
            let due = clock.now - lastRound >= interval
            // Just written: deliver's own read tells what is new (no read of the newest id first).
            let written = watcher != nil && clock.now - lastWrite < Self.afterWrite
            let head = written ? newest : (try? await face.newestNotificationID()) ?? newest
            if head != newest || due || written {
                newest = head
                if due {
                    lastRound = clock.now
                    _ = try? await face.processRenewals()
                }
                let targets = urls.isEmpty ? ((try? await face.receivers())?.map(\.url) ?? []) : urls
                for url in targets { await deliver(to: url, kept: urls.isEmpty) }
            }
            guard let watcher else {
                try? await Task.sleep(for: wake)
                continue
            }
            if clock.now - lastWrite < Self.afterWrite {
                try? await Task.sleep(for: Self.closely)
            } else if await watcher.wakeup.wait(timeout: max(.zero, interval - (clock.now - lastRound))) {
                lastWrite = clock.now
            }
        }
    }

    /// How long after a write to the store file the sender keeps looking, and how often.
    static let afterWrite: Duration = .milliseconds(5)
    static let closely: Duration = .microseconds(100)

    /// Sends every notification due for `url`, oldest first, stopping at the first failure;
    /// `kept`: a receiver kept in the store, which may have been removed since it was listed.
    func deliver(to url: String, kept: Bool = false) async {
        while !Task.isCancelled, let (notification, due) = try? await face.nextNotification(for: url, kept: kept), due {
            let result = await post(notification.signedPayload, to: url)
            do {
                try await face.recordAttempt(notificationID: notification.id, url: url, result: result)
            } catch {
                log("storefront serve: cannot record a delivery attempt: \(error)")
                return
            }
            let name = [notification.type, notification.subtype].compactMap { $0 }.joined(separator: " ")
            log("notification \(notification.id) \(name) → \(url): \(result.rawValue)")
            guard result == .success else { return }
        }
    }

    /// One POST of `{"signedPayload": …}`; its outcome as Apple's `sendAttemptResult`.
    func post(_ signedPayload: String, to url: String) async -> SendAttemptResult {
        guard URL(string: url) != nil else { return .other }
        let body = JSON.object(["signedPayload": .string(signedPayload)]).serialized(pretty: false)
        let timeout = Int(max(1, (self.timeout * 1000).rounded()))
        // curl blocks while it sends and waits: on a thread of its own, off Swift's pool.
        return await withCheckedContinuation { done in
            DispatchQueue.global().async { [self] in
                guard let handle = idle.withLock({ $0.popLast() }) ?? storefront_curl_handle().map(CurlHandle.init) else {
                    log("storefront serve: cannot send notifications: libcurl (libcurl.so.4) is not installed")
                    done.resume(returning: .other)
                    return
                }
                var status = 0
                var text = body
                let code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { storefront_curl_post_json(handle.pointer, url, $0.baseAddress, $0.count, timeout, &status) }
                }
                idle.withLock { $0.append(handle) }
                done.resume(returning: code == 0 ? ((200...206).contains(status) ? .success : .unsuccessfulHTTPResponseCode)
                                                 : Self.result(ofCurlCode: code))
            }
        }
    }

    /// A curl error (curl.h's `CURLcode`, classified by the loader) as Apple's `sendAttemptResult`.
    static func result(ofCurlCode code: Int32) -> SendAttemptResult {
        switch storefront_curl_failure_kind(code) {
        case storefront_curl_timed_out: .timedOut
        case storefront_curl_no_response: .noResponse
        case storefront_curl_premature_close: .prematureClose
        case storefront_curl_circular_redirect: .circularRedirect
        case storefront_curl_tls_issue: .tlsIssue
        case storefront_curl_invalid_response: .invalidResponse
        default: .socketIssue
        }
    }
}
