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

    /// Sends what waits at each change the store's change feed hands out, until cancelled: a
    /// notification recorded (by this process or another), a renewal the feed made when it fell
    /// due, or a retry's time come (the feed is asked to wake then).
    func run(changes: AsyncStream<StoreChange>, feed: StoreChangeFeed) async {
        for await _ in changes {
            let targets = urls.isEmpty ? ((try? await face.receivers())?.map(\.url) ?? []) : urls
            for url in targets {
                if let retry = await deliver(to: url, kept: urls.isEmpty) { feed.wake(atStoreTime: retry) }
            }
        }
    }

    /// Sends every notification due for `url`, oldest first, stopping at the first failure;
    /// `kept`: a receiver kept in the store, which may have been removed since it was listed.
    /// Returns when the one it stopped at may be tried again (store time), if it waits for a retry.
    @discardableResult
    func deliver(to url: String, kept: Bool = false) async -> Date? {
        while !Task.isCancelled, let (notification, due) = try? await face.nextNotification(for: url, kept: kept) {
            guard due else { return face.retryDate(of: notification) }
            let result = await post(notification.signedPayload, to: url)
            do {
                try await face.recordAttempt(notificationID: notification.id, url: url, result: result)
            } catch {
                log("storefront serve: cannot record a delivery attempt: \(error)")
                return nil
            }
            let name = [notification.type, notification.subtype].compactMap { $0 }.joined(separator: " ")
            log("notification \(notification.id) \(name) → \(url): \(result.rawValue)")
            guard result == .success else {
                return (try? await face.nextNotification(for: url, kept: kept)).flatMap { face.retryDate(of: $0.notification) }
            }
        }
        return nil
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
