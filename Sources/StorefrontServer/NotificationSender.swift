import CCurl
import Dispatch
import Foundation
import StoreEngine
import Synchronization

/// Delivers the store's notifications to each receiver URL, as the App Store does: a
/// `responseBodyV2` POSTed, a 2xx (200–206) ends it, anything else is retried 1, 12, 24, 48
/// and 72 hours after the previous attempt (store time). Each URL gets them in the order
/// they were made: a later one waits while an earlier one is being retried. The URLs are
/// served side by side: one that hangs (each POST until its timeout) holds up no other.
///
/// An attempt the store cannot record (a full disk) is kept here: nothing more goes to that
/// URL until it is recorded (tried again every ``recordRetry``, 5 s), and the notification is sent
/// again only when its retry falls due on the store's schedule, never in a loop.
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
    /// Keeps an attempt in the store: the face's `recordAttempt`, or a test's double.
    let record: @Sendable (_ notificationID: Int64, _ url: String, _ result: SendAttemptResult, _ date: Date) async throws -> Void
    /// Attempts made but not recorded yet, by URL.
    private let unrecorded = Mutex<[String: UnrecordedAttempt]>([:])
    /// How often an attempt that could not be recorded is tried again (real time).
    let recordRetry: Duration

    /// An attempt the store could not record (its file could not be written), kept until it is.
    struct UnrecordedAttempt: Sendable {
        var notificationID: Int64
        var result: SendAttemptResult
        /// When it was made, store time: recorded with this date, its retry reckoned from it.
        var date: Date
        /// The attempts at this notification before it (recorded or not): its place in the schedule.
        var attemptsBefore: Int
        /// When to try recording it again.
        var nextTry: ContinuousClock.Instant
    }

    /// A curl easy handle: used by one thread at a time, kept in `idle` between uses.
    private struct CurlHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    init(face: AppStoreFace, urls: [String], timeout: TimeInterval = 10, log: @escaping @Sendable (String) -> Void,
         record: (@Sendable (Int64, String, SendAttemptResult, Date) async throws -> Void)? = nil,
         recordRetry: Duration = .seconds(5)) {
        self.recordRetry = recordRetry
        self.face = face
        self.urls = urls
        self.timeout = timeout
        self.log = log
        self.record = record ?? { id, url, result, date in
            try await face.recordAttempt(notificationID: id, url: url, result: result, at: date)
        }
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
            let kept = urls.isEmpty
            let distinct = Set(targets)
            // One receiver (the usual --notify) is served on this task: no child task between the change and its POST.
            guard distinct.count > 1 else {
                if let url = distinct.first, let retry = await deliver(to: url, kept: kept) { feed.wake(atStoreTime: retry) }
                continue
            }
            await withTaskGroup(of: Void.self) { group in
                for url in distinct {
                    group.addTask { if let retry = await self.deliver(to: url, kept: kept) { feed.wake(atStoreTime: retry) } }
                }
            }
        }
    }

    /// Records the attempt kept for `url`, if there is one and its time to try has come.
    /// `.some(nil)`: go on delivering (nothing kept any more, or its retry is due: it is sent
    /// again); a date: nothing more goes to `url` before then (store time).
    private func recordKept(for url: String) async -> Date?? {
        guard let kept = unrecorded.withLock({ $0[url] }) else { return .some(nil) }
        let now = (try? await face.now()) ?? kept.date
        if ContinuousClock.now >= kept.nextTry {
            do {
                try await record(kept.notificationID, url, kept.result, kept.date)
                unrecorded.withLock { $0[url] = nil }
                log("notification \(kept.notificationID) → \(url): \(kept.result.rawValue) (recorded late)")
                return .some(nil)
            } catch {
                unrecorded.withLock { $0[url]?.nextTry = ContinuousClock.now + recordRetry }
            }
        }
        // Still unrecorded: sent again once its retry falls due, as a failed attempt would be.
        let step = min(kept.attemptsBefore, notificationRetryDelays.count - 1)
        let retry = kept.date.addingTimeInterval(notificationRetryDelays[step])
        if retry <= now || kept.date > now {
            // Forgotten here; the POST again below counts as the attempt after it.
            return .some(nil)
        }
        return min(retry, now.addingTimeInterval(recordRetry / .seconds(1)))
    }

    /// Sends every notification due for `url`, oldest first, stopping at the first failure;
    /// `kept`: a receiver kept in the store, which may have been removed since it was listed.
    /// Returns when the one it stopped at may be tried again (store time), if it waits for a retry.
    @discardableResult
    func deliver(to url: String, kept: Bool = false) async -> Date? {
        if case .some(let wait?) = await recordKept(for: url) { return wait }
        let before = unrecorded.withLock { $0.removeValue(forKey: url) }
        // Each attempt is dated by the store's clock when its notification was read, before the POST.
        while !Task.isCancelled, let (notification, due, date) = try? await face.nextNotification(for: url, kept: kept) {
            guard due else { return face.retryDate(of: notification) }
            let result = await post(notification.signedPayload, to: url)
            do {
                try await record(notification.id, url, result, date)
            } catch {
                let earlier = before?.notificationID == notification.id ? before!.attemptsBefore + 1 : notification.attempts.count
                unrecorded.withLock {
                    $0[url] = UnrecordedAttempt(notificationID: notification.id, result: result, date: date, attemptsBefore: earlier,
                                                nextTry: ContinuousClock.now + recordRetry)
                }
                log("cannot record a delivery attempt (\(result.rawValue) of notification \(notification.id) → \(url)): \(error); kept until it can be, nothing more sent to that URL meanwhile")
                return date.addingTimeInterval(recordRetry / .seconds(1))
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
