import Foundation
import Glibc
import StoreEngine
import StorefrontServer
import Synchronization
import TestSupport

/// `storefront serve` under attack (issue 30): two servers on one store file, hostile parameters
/// and bodies, 100 unauthenticated connections announcing big bodies, and four receivers — one
/// that answers 200, one that redirects (302) now and then, one that fails (500) now and then,
/// one that hangs past the sender's timeout — while purchases make notifications. Counts the API
/// requests, the notifications recorded, sent and received, and the lost and doubled ones.
enum ServerAttack {
    /// A receiver in this process (libmicrohttpd, as serve itself): the notifications it took
    /// (answered 200 while the sender still waited), and the other answers it gave.
    final class Receiver: Sendable {
        enum Behaviour: Sendable { case good, redirects, fails, hangs }
        let behaviour: Behaviour
        /// Its counts, shared with the connection threads.
        final class Counts: Sendable {
            let state = Mutex<(requests: Int, delivered: [String], refused: Int, hung: Int, redirectTargetAsked: Int)>((0, [], 0, 0, 0))
        }
        let http: HTTPServer
        let counts: Counts
        let port: UInt16

        init(_ behaviour: Behaviour) throws {
            self.behaviour = behaviour
            let counts = Counts()
            self.counts = counts
            http = HTTPServer(handler: { request in
                if request.path == "/elsewhere" {
                    // Where the 302 points: a sender that follows it (as a GET) would land here.
                    counts.state.withLock { $0.redirectTargetAsked += 1 }
                    return HTTPResponse(status: 200)
                }
                let index = counts.state.withLock { state -> Int in
                    state.requests += 1
                    return state.requests
                }
                var uuid = "?"
                if case .string(let jws)? = (try? JSON.parse(request.body))?["signedPayload"] {
                    let parts = jws.split(separator: ".")
                    if parts.count == 3, let bytes = Base64URL.decode(parts[1]),
                       case .string(let text)? = (try? JSON.parse(bytes))?["notificationUUID"] { uuid = text }
                }
                switch behaviour {
                case .redirects where index % 4 == 1:
                    counts.state.withLock { $0.refused += 1 }
                    return HTTPResponse(status: 302, headers: [("Location", "/elsewhere")])
                case .fails where index % 3 == 1:
                    counts.state.withLock { $0.refused += 1 }
                    return HTTPResponse(status: 500)
                case .hangs where index <= 2:
                    // Past the sender's 10 s: it has given up (TIMED_OUT) when this answers.
                    sleep(12)
                    counts.state.withLock { $0.hung += 1 }
                    return HTTPResponse(status: 200)
                default:
                    counts.state.withLock { $0.delivered.append(uuid) }
                    return HTTPResponse(status: 200)
                }
            })
            try http.start(ListenAddress("127.0.0.1:0")!)
            port = http.port
        }

        var url: String { "http://127.0.0.1:\(port)/" }
        var delivered: [String] { counts.state.withLock { $0.delivered } }
    }

    /// A connection that has sent `text` (-1 when it could not connect).
    static func connection(port: UInt16, _ text: String) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            return -1
        }
        _ = Array(text.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return socket
    }

    /// Reads the answer on `socket` to its end (or `seconds` of silence) and closes it; the status (0: none) and body.
    static func answer(_ socket: Int32, seconds: Int = 15) -> (status: Int, body: String) {
        guard socket >= 0 else { return (0, "") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[..<count]
            // A 401 on the headers alone: the connection stays open for a body that never comes.
            if answer.count > 12, String(decoding: answer.prefix(12), as: UTF8.self) == "HTTP/1.1 401" { break }
        }
        let reply = String(decoding: answer, as: UTF8.self)
        let status = reply.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, reply.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// One request with `Connection: close` on a connection of its own.
    static func request(port: UInt16, _ text: String, seconds: Int = 15) -> (status: Int, body: String) {
        answer(connection(port: port, text), seconds: seconds)
    }

    /// The resident memory of a process, in kB (0 when it is gone).
    static func rss(_ pid: pid_t) -> Int {
        let status = Processes.read("/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static let hostile = ["9223372036854775807", "-9223372036854775808", "-1", "0", "18446744073709551616", "1e400", "NaN",
                          "%00", "%1B%5B2J", "%F0%9F%A6%84", String(repeating: "9", count: 3000), "253402300800000"]

    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("server-attack")
        let store = folder + "/s.sqlite"
        let sf: @Sendable ([String]) -> Outcome = { arguments in context.run(store, arguments) }
        // Production: Apple retries there (Sandbox tries once).
        findings.check(sf(["settings", "set", "environment", "Production"]).status == 0, "settings set environment")
        guard let credentials = APICredentials(store: store, folder: folder, context, findings) else { return (findings, "") }
        func token() -> String { credentials.token() }

        let receivers: [Receiver]
        do {
            receivers = try [.good, .redirects, .fails, .hangs].map { try Receiver($0) }
        } catch {
            findings.fail("cannot start the receivers: \(error)")
            return (findings, "")
        }
        defer { for receiver in receivers { receiver.http.stop() } }
        let notify = receivers.flatMap { ["--notify", $0.url] }
        func serve(_ name: String) -> (pid: pid_t, log: String)? {
            let log = folder + "/\(name).log"
            guard let pid = Processes.spawn([context.storefront, "--catalog", context.catalog, "--store", store, "serve",
                                             "--listen", "127.0.0.1:0"] + notify, stdout: log, stderr: log) else { return nil }
            return (pid, log)
        }
        func port(of log: String) -> UInt16? { ServerLimits.port(of: log) }
        guard let first = serve("first"), let firstPort = port(of: first.log), let second = serve("second"),
              let secondPort = port(of: second.log) else {
            findings.fail("a server did not start")
            return (findings, "")
        }
        let secondSays = Processes.read(second.log)
        findings.check(secondSays.contains("not sending notifications"), "the second serve did not say it is not sending: \(secondSays.prefix(400))")

        // Purchases from other processes, while the API is attacked.
        let purchases = context.quick ? 12 : 40
        let buyer = Task.detached { () -> Int in
            var bought = 0
            for index in 0..<purchases {
                if sf(["buy", index % 10 == 9 ? Demo.swiftShopping : Demo.coins]).status == 0 { bought += 1 }
                if index == purchases / 2 { kill(first.pid, SIGTERM) }  // the sender stops: the other takes over
            }
            return bought
        }

        // Hostile parameters with a good token, on both servers.
        var requests = 0, badAnswers = 0
        let paths = ["/inApps/v1/history/1", "/inApps/v2/history/1", "/inApps/v1/subscriptions/1", "/inApps/v2/refund/lookup/1",
                     "/inApps/v1/transactions/1"]
        let names = ["startDate", "endDate", "revision", "sort", "status", "productType", "revoked", "inAppOwnershipType"]
        let rounds = context.quick ? 150 : 600
        for round in 0..<rounds {
            let value = hostile[round % hostile.count]
            let path = paths[round % paths.count] + "?\(names[round % names.count])=\(value)"
            let text: String
            if round % 5 == 4 {
                let body = #"{"startDate": \#(value.allSatisfy { $0.isNumber || $0 == "-" } ? value : "1"), "endDate": 9223372036854775807}"#
                text = "POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + "Authorization: Bearer \(token())\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            } else {
                text = "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token())\r\n\r\n"
            }
            var answer = request(port: round % 2 == 0 ? secondPort : firstPort, text)
            // The first server stops listening midway (SIGTERM; a crash would show in its exit status): then the second answers.
            if answer.status == 0, round % 2 == 1 {
                answer = request(port: secondPort, text)
            }
            requests += 1
            let json = try? JSON.parse(Array(answer.body.utf8))
            let ok = [200, 400, 404].contains(answer.status) && (answer.status == 200 || json?["errorCode"] != nil)
            if !ok {
                badAnswers += 1
                if badAnswers <= 5 { findings.fail("\(path) → \(answer.status) \(answer.body.prefix(200))") }
            }
        }

        // 100 strangers at once, each announcing 900 KB of body and sending none of it: all
        // connected and waiting together, the server's memory taken while they are.
        let before = rss(second.pid)
        let strangers = context.quick ? 40 : 100
        let sockets = (0..<strangers).map { _ in
            connection(port: secondPort, "POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: x\r\n"
                       + "Authorization: Bearer forged\r\nContent-Length: 900000\r\n\r\n")
        }
        usleep(500_000)
        let after = rss(second.pid)
        var refusedStrangers = 0
        for socket in sockets {
            if answer(socket, seconds: 20).status == 401 { refusedStrangers += 1 }
        }
        requests += strangers
        findings.check(refusedStrangers == strangers,
                       "\(strangers - refusedStrangers) of \(strangers) unauthenticated connections not refused on their headers")
        findings.check(after - before < 30_000, "\(strangers) unauthenticated connections grew the server by \((after - before) / 1024) MB")

        let bought = await buyer.value
        findings.check(bought == purchases, "\(purchases - bought) purchases failed")
        // The failures wait for their retries: the store's clock moved past each, until all are in.
        func recorded() -> [[String: Any]] {
            let listed = sf(["notifications", "--json"])
            guard let data = listed.stdout.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
            return object["notifications"] as? [[String: Any]] ?? []
        }
        var notifications = recorded()
        let deadline = Date().addingTimeInterval(context.quick ? 120 : 300)
        var advances = 0
        while Date() < deadline {
            notifications = recorded()
            let uuids = Set(notifications.compactMap { $0["notificationUUID"] as? String })
            if !uuids.isEmpty, receivers.allSatisfy({ uuids.isSubset(of: Set($0.delivered)) }) { break }
            let progress = receivers.map(\.delivered.count)
            usleep(1_500_000)
            if receivers.map(\.delivered.count) == progress {
                _ = sf(["clock", "advance", "P4D"])
                advances += 1
            }
        }
        let uuids = Set(notifications.compactMap { $0["notificationUUID"] as? String })
        var lost = 0, doubled = 0, received = 0
        for receiver in receivers {
            let got = receiver.delivered
            received += got.count
            lost += uuids.subtracting(got).count
            doubled += got.count - Set(got).count
        }
        let attempts = notifications.reduce(0) { $0 + (($1["sendAttempts"] as? [Any])?.count ?? 0) }
        let results = notifications.flatMap { ($0["sendAttempts"] as? [[String: Any]] ?? []).compactMap { $0["sendAttemptResult"] as? String } }
        let redirectTarget = receivers[1].counts.state.withLock { $0.redirectTargetAsked }
        findings.check(lost == 0, "\(lost) notifications never reached a receiver")
        findings.check(doubled == 0, "\(doubled) notifications reached a receiver twice")
        findings.check(redirectTarget == 0, "a redirect was followed: its target was asked \(redirectTarget) times")
        findings.check(results.contains("UNSUCCESSFUL_HTTP_RESPONSE_CODE"), "no failed attempt recorded for a 302 or a 500")
        findings.check(results.contains("TIMED_OUT"), "no TIMED_OUT recorded for the receiver that hangs")
        // One ONE_TIME_CHARGE per transaction (a non-consumable bought again makes none).
        let transactions = context.transactionCount(store)
        findings.check(transactions > 0 && uuids.count == transactions, "\(uuids.count) notifications recorded for \(transactions) transactions")

        // Crashes: both servers stop cleanly on SIGTERM (the first was stopped midway).
        let firstEnd = Processes.wait(first.pid, timeout: 30)
        kill(second.pid, SIGTERM)
        let secondEnd = Processes.wait(second.pid, timeout: 30)
        let crashes = [firstEnd, secondEnd].filter { $0.status != 0 || $0.signal != nil || $0.timedOut }.count
        findings.check(crashes == 0, "a server crashed or did not stop: \(firstEnd), \(secondEnd)")
        let secondLog = Processes.read(second.log)
        findings.check(secondLog.contains("now sending notifications"), "the second serve never took over")
        let stray = (Processes.read(first.log) + secondLog).split(separator: "\n").filter { !$0.hasPrefix("storefront") }
        findings.check(stray.isEmpty, "lines that are not storefront's: \(stray.prefix(3))")
        let refused = receivers.reduce(0) { $0 + $1.counts.state.withLock { $0.refused + $0.hung } }
        return (findings, "2 servers (the first stopped midway, the second took over): \(requests) hostile API requests (\(badAnswers) bad answers), \(strangers) unauthenticated 900 KB connections refused on their headers (+\(max(0, after - before) / 1024) MB); \(uuids.count) notifications × 4 receivers, \(attempts) attempts (\(refused) redirected, failed or hung, \(advances) clock advances for the retries), \(received) received, \(lost) lost, \(doubled) doubled, \(crashes) crashes")
    }
}
