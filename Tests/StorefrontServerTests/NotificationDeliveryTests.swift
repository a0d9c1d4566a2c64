import Foundation
import StoreEngine
@testable import StorefrontServer
import Synchronization
import Testing
import TestSupport

/// A receiver on a loopback port (libmicrohttpd, as `serve` itself): every request it gets,
/// answered as the test says.
final class LoopbackReceiver: Sendable {
    struct Received: Sendable {
        var method: String
        var path: String
        /// The notification's `notificationUUID`, when the body carried one.
        var uuid: String?
    }

    /// What came in, shared with the connection threads.
    final class Log: Sendable { let received = Mutex<[Received]>([]) }

    let http: HTTPServer
    let log: Log
    let port: UInt16

    init(answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in HTTPResponse(status: 200) }) throws {
        let log = Log()
        self.log = log
        http = HTTPServer(handler: { request in
            var uuid: String?
            if case .string(let jws)? = (try? JSON.parse(request.body))?["signedPayload"] {
                let parts = jws.split(separator: ".")
                if parts.count == 3, let bytes = Base64URL.decode(parts[1]),
                   case .string(let text)? = (try? JSON.parse(bytes))?["notificationUUID"] { uuid = text }
            }
            log.received.withLock { $0.append(Received(method: request.method, path: request.path, uuid: uuid)) }
            return answer(request)
        })
        try http.start(ListenAddress("127.0.0.1:0")!)
        port = http.port
    }

    var url: String { "http://127.0.0.1:\(port)/" }
    var all: [Received] { log.received.withLock { $0 } }
    var uuids: [String] { all.compactMap(\.uuid) }

    /// Waits (at most `seconds`) until `count` notifications came in.
    func wait(for count: Int, seconds: Double = 20) async throws -> [String] {
        _ = await eventually(within: .seconds(seconds), every: .milliseconds(20)) { uuids.count >= count }
        return uuids
    }

    deinit { http.stop() }
}

/// Server Notifications V2 as `serve` sends them, in process: redirects, a full disk, a clock
/// moved back, two servers on one store file.
@Suite("NotificationSender: delivery that never loses, doubles or loops")
struct NotificationDeliveryTests {
    typealias Fixture = ServerAPITests.Fixture

    /// A fixture whose notifications are retried (Production: Apple retries there only).
    static func fixture() async throws -> Fixture {
        let fixture = try await Fixture()
        _ = try await fixture.store.testSession.setSetting("environment", to: "Production")
        return fixture
    }

    static func results(_ store: Store, url: String) async throws -> [[String]] {
        try await store.appStore.notifications().map { $0.attempts.filter { $0.url == url }.map(\.result.rawValue) }
    }

    @Test("A 301, 302 or 303 is a failed attempt (UNSUCCESSFUL_HTTP_RESPONSE_CODE), its target never asked; a 307 or 308 is followed with the body")
    func redirects() async throws {
        for status in [301, 302, 303, 307, 308] {
            let fixture = try await Self.fixture()
            let receiver = try LoopbackReceiver { request in
                request.path == "/moved" ? HTTPResponse(status: 200) : HTTPResponse(status: status, headers: [("Location", "/moved")])
            }
            _ = try await fixture.buy("pro")
            let sender = NotificationSender(face: fixture.store.appStore, urls: [receiver.url], log: { _ in })
            await sender.deliver(to: receiver.url)
            let results = try await Self.results(fixture.store, url: receiver.url)
            let asked = receiver.all.map { "\($0.method) \($0.path)\($0.uuid == nil ? "" : " with the notification")" }
            if status >= 307 {
                #expect(results == [["SUCCESS"]], "\(status)")
                #expect(asked == ["POST / with the notification", "POST /moved with the notification"], "\(status)")
            } else {
                #expect(results == [["UNSUCCESSFUL_HTTP_RESPONSE_CODE"]], "\(status)")
                #expect(asked == ["POST / with the notification"], "\(status)")
            }
        }
    }

    @Test("A 307 to itself, again and again, is CIRCULAR_REDIRECT")
    func redirectLoop() async throws {
        let fixture = try await Self.fixture()
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 307, headers: [("Location", "/")]) }
        _ = try await fixture.buy("pro")
        await NotificationSender(face: fixture.store.appStore, urls: [receiver.url], log: { _ in }).deliver(to: receiver.url)
        #expect(try await Self.results(fixture.store, url: receiver.url) == [["CIRCULAR_REDIRECT"]])
        #expect(receiver.all.count == 17)
    }

    final class Flag: Sendable { let value = Atomic<Bool>(true) }
    final class Lines: Sendable { let all = Mutex<[String]>([]) }

    struct DiskFull: Error, CustomStringConvertible { var description: String { "database or disk is full" } }

    /// Records as the store does, or fails as a full disk makes it fail: the test's double of the face's `recordAttempt`.
    final class FullDiskRecorderDouble: Sendable {
        let full = Atomic<Bool>(true)
        let face: AppStoreFace
        init(face: AppStoreFace) { self.face = face }
        func record(_ id: Int64, _ url: String, _ result: SendAttemptResult, _ date: Date) async throws {
            guard !full.load(ordering: .relaxed) else { throw DiskFull() }
            try await face.recordAttempt(notificationID: id, url: url, result: result, at: date)
        }
    }

    @Test("A POST whose attempt cannot be recorded (SQLITE_FULL) is not sent again at each wake; it is recorded once the disk has room, never sent twice")
    func fullDisk() async throws {
        let fixture = try await Self.fixture()
        let receiver = try LoopbackReceiver()
        _ = try await fixture.buy("pro")
        let recorder = FullDiskRecorderDouble(face: fixture.store.appStore)
        let sender = NotificationSender(face: fixture.store.appStore, urls: [receiver.url], log: { _ in },
                                        record: { try await recorder.record($0, $1, $2, $3) }, recordRetry: .milliseconds(50))
        // The sender's loop runs a round at every change and wake: as the full disk's failed writes wake it.
        for _ in 0..<20 {
            await sender.deliver(to: receiver.url)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(receiver.uuids.count == 1, "POSTed \(receiver.uuids.count) times while the attempt could not be recorded")
        _ = try await fixture.buy("coins")
        await sender.deliver(to: receiver.url)
        #expect(receiver.uuids.count == 1, "a later notification went out before the earlier one's attempt was recorded")
        recorder.full.store(false, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(60))
        await sender.deliver(to: receiver.url)
        #expect(try await Self.results(fixture.store, url: receiver.url) == [["SUCCESS"], ["SUCCESS"]])
        #expect(receiver.uuids.count == 2 && Set(receiver.uuids).count == 2, "\(receiver.uuids)")
    }

    @Test("A failure while the clock was ahead does not hold up later notifications after reset all moves it back")
    func clockMovedBack() async throws {
        let fixture = try await Self.fixture()
        let failing = Flag()
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: failing.value.load(ordering: .relaxed) ? 500 : 200) }
        _ = try await fixture.store.testSession.advanceClock(by: ISODuration(days: 30))
        _ = try await fixture.buy("pro")
        let sender = NotificationSender(face: fixture.store.appStore, urls: [receiver.url], log: { _ in })
        await sender.deliver(to: receiver.url)
        #expect(try await Self.results(fixture.store, url: receiver.url) == [["UNSUCCESSFUL_HTTP_RESPONSE_CODE"]])
        try await fixture.store.testSession.reset(.all)
        _ = try await fixture.store.testSession.setSetting("environment", to: "Production")
        _ = try await fixture.buy("coins")
        failing.value.store(false, ordering: .relaxed)
        await sender.deliver(to: receiver.url)
        let results = try await Self.results(fixture.store, url: receiver.url)
        #expect(results == [["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"], ["SUCCESS"]], "\(results)")
    }

    @Test("Two servers on one store file: one sends (the lock holder), the other serves the API only and takes over when it stops; nothing twice")
    func oneSenderPerFile() async throws {
        let fixture = try await Self.fixture()
        let receiver = try LoopbackReceiver()
        let other = try Store(catalog: fixture.store.catalog, path: fixture.store.path)
        let first = AppStoreServer(store: fixture.store, notifyURLs: [receiver.url], log: { _ in })
        let lines = Lines()
        let second = AppStoreServer(store: other, notifyURLs: [receiver.url], log: { line in lines.all.withLock { $0.append(line) } })
        let address = ListenAddress("127.0.0.1:0")!
        try await first.start(listen: address)
        try await second.start(listen: address)
        #expect(first.isSending && !second.isSending)
        let said = lines.all.withLock { $0 }
        #expect(said.contains { $0.contains("not sending notifications") }, "\(said)")
        for _ in 0..<5 { _ = try await fixture.buy("coins") }
        #expect(try await receiver.wait(for: 5).count == 5)
        // One more after: anything sent twice before it would have come in by then.
        _ = try await fixture.buy("coins")
        let six = try await receiver.wait(for: 6)
        #expect(six.count == 6 && Set(six).count == 6, "\(six)")
        await first.stop()
        #expect(await eventually { second.isSending }, "the second server did not take over")
        _ = try await other.app.buy("coins")
        let seven = try await receiver.wait(for: 7)
        _ = try await other.app.buy("coins")
        let eight = try await receiver.wait(for: 8)
        #expect(seven.count == 7 && eight.count == 8 && Set(eight).count == 8, "\(eight)")
        await second.stop()
    }

    @Test("A folder where the sender lock goes: neither server sends (each says why, once), both answer the API; nothing doubled; once it goes, one sends")
    func unavailableLockNeverSends() async throws {
        let fixture = try await Self.fixture()
        let receiver = try LoopbackReceiver()
        let lockPath = URL(fileURLWithPath: fixture.store.path).resolvingSymlinksInPath().path + "-sender.lock"
        #expect(mkdir(lockPath, 0o700) == 0)
        let other = try Store(catalog: fixture.store.catalog, path: fixture.store.path)
        let (firstLines, secondLines) = (Lines(), Lines())
        let first = AppStoreServer(store: fixture.store, notifyURLs: [receiver.url], log: { line in firstLines.all.withLock { $0.append(line) } })
        let second = AppStoreServer(store: other, notifyURLs: [receiver.url], log: { line in secondLines.all.withLock { $0.append(line) } })
        let address = ListenAddress("127.0.0.1:0")!
        let ports = (try await first.start(listen: address), try await second.start(listen: address))
        #expect(!first.isSending && !second.isSending)
        let coins = try await fixture.buy("coins")
        for _ in 0..<4 { _ = try await fixture.buy("coins") }
        // The API answers on both, the lock or not.
        let token = try fixture.token()
        for port in [ports.0, ports.1] {
            let answer = await ServerGateTests.exchange(port: port, "GET /inApps/v1/transactions/\(coins.id) HTTP/1.1\r\nHost: x\r\n"
                                                        + "Authorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        }
        // Three seconds of looking again each second: nothing sent, and the reason said once each.
        try await Task.sleep(for: .seconds(3))
        #expect(receiver.uuids.isEmpty, "sent without the lock: \(receiver.uuids)")
        for lines in [firstLines, secondLines] {
            let said = lines.all.withLock { $0 }.filter { $0.contains("not sending notifications") }
            #expect(said.count == 1, "\(said)")
            #expect(said.first?.contains("\(lockPath) cannot be taken") == true, "\(said)")
        }
        rmdir(lockPath)
        _ = await eventually { first.isSending || second.isSending }
        #expect(first.isSending != second.isSending, "exactly one sends once the lock can be taken")
        _ = try await fixture.buy("coins")
        let six = try await receiver.wait(for: 6)
        // Anything sent twice would have come in by a seventh, sent after.
        _ = try await fixture.buy("coins")
        let seven = try await receiver.wait(for: 7)
        #expect(six.count == 6 && seven.count == 7 && Set(seven).count == 7, "\(seven)")
        // The seventh's SUCCESS is recorded after its receiver answered.
        var results = try await Self.results(fixture.store, url: receiver.url)
        let recorded = Date().addingTimeInterval(10)
        while results.contains([]), Date() < recorded {
            try await Task.sleep(for: .milliseconds(50))
            results = try await Self.results(fixture.store, url: receiver.url)
        }
        #expect(results.count == 7 && results.allSatisfy { $0 == ["SUCCESS"] }, "\(results)")
        print("sender lock a folder: 2 servers, 0 notifications sent while it was, 7 sent once each after")
        await first.stop()
        await second.stop()
    }

    @Test("A receiver answering 201, 202, 203, 204, 205 or 206 has the notification: SUCCESS, never sent again")
    func every2xxIsDelivered() async throws {
        for status in 201...206 {
            let fixture = try await Self.fixture()
            let receiver = try LoopbackReceiver { _ in HTTPResponse(status: status) }
            _ = try await fixture.buy("pro")
            let sender = NotificationSender(face: fixture.store.appStore, urls: [receiver.url], log: { _ in })
            await sender.deliver(to: receiver.url)
            #expect(try await Self.results(fixture.store, url: receiver.url) == [["SUCCESS"]], "\(status)")
            // A day on (past the first retry's hour): nothing is due again.
            _ = try await fixture.store.testSession.advanceClock(by: ISODuration(days: 1))
            await sender.deliver(to: receiver.url)
            #expect(receiver.uuids.count == 1, "\(status): \(receiver.uuids)")
        }
    }
}
