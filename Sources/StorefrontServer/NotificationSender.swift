import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreEngine

/// Delivers the store's notifications to each receiver URL, as the App Store does: a
/// `responseBodyV2` POSTed, a 2xx (200–206) ends it, anything else is retried 1, 12, 24, 48
/// and 72 hours after the previous attempt (store time). Each URL gets them in the order
/// they were made: a later one waits while an earlier one is being retried.
final class NotificationSender: @unchecked Sendable {
    // Immutable after init; URLSession is thread-safe.
    let face: AppStoreFace
    /// The `--notify` URLs; when empty, the receivers kept in the store, read again each round.
    let urls: [String]
    let session: URLSession
    let log: @Sendable (String) -> Void

    init(face: AppStoreFace, urls: [String], timeout: TimeInterval = 10, log: @escaping @Sendable (String) -> Void) {
        self.face = face
        self.urls = urls
        self.log = log
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration)
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
        guard let target = URL(string: url) else { return .other }
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSON.object(["signedPayload": .string(signedPayload)]).serialized(pretty: false).utf8)
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .invalidResponse }
            return (200...206).contains(http.statusCode) ? .success : .unsuccessfulHTTPResponseCode
        } catch let error as URLError {
            switch error.code {
            case .timedOut: return .timedOut
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet: return .noResponse
            case .networkConnectionLost: return .prematureClose
            case .httpTooManyRedirects, .redirectToNonExistentLocation: return .circularRedirect
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                 .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot: return .tlsIssue
            case .badServerResponse, .cannotParseResponse: return .invalidResponse
            default: return .socketIssue
            }
        } catch {
            return .other
        }
    }
}
