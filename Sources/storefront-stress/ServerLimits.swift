import Foundation
import Glibc
import StoreEngine
import StorefrontServer
import TestSupport

/// Issue 43's faults about load and races: idle connections exhausting `serve`'s descriptors, and
/// two `serve`s whose sender lock cannot be taken.
enum ServerLimits {
    /// The port a `serve` writing to `log` listens on, once it says so (nil after 30 s).
    static func port(of log: String) -> UInt16? {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = Processes.read(log)
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                return UInt16(text[range].split(separator: ":").last ?? "")
            }
            usleep(50_000)
        }
        return nil
    }

    /// `serve` under `ulimit -n 48`, in waves of 200 idle loopback connections (45 stopped it for
    /// good before, and 1.37 million log lines filled stderr): after each wave the API answers
    /// again within the idle deadline, the log stays small, the server lives and stops cleanly.
    static func idleConnections(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("idle-connections")
        let store = folder + "/s.sqlite"
        findings.check(context.run(store, ["buy", Demo.coins]).status == 0, "the first purchase failed")
        let log = folder + "/serve.log"
        guard let pid = Processes.spawn(["/bin/bash", "-c", "ulimit -n 48; exec \"$@\"", "bash", context.storefront, "--catalog", context.catalog,
                                         "--store", store, "serve", "--listen", "127.0.0.1:0"], stdout: log, stderr: log),
              let port = port(of: log) else {
            findings.fail("serve did not start under ulimit -n 48")
            return (findings, "")
        }
        let probe = "GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let waves = context.quick ? 2 : 5
        var recoveries: [Double] = []
        for wave in 0..<waves {
            let idle = (0..<200).map { _ in ServerAttack.connection(port: port, "") }
            let start = Date()
            var back: Double?
            while Date().timeIntervalSince(start) < 60 {
                // No token: the API's 401 shows it is serving.
                if ServerAttack.request(port: port, probe, seconds: 3).status == 401 {
                    back = Date().timeIntervalSince(start)
                    break
                }
                usleep(250_000)
            }
            idle.forEach { if $0 >= 0 { close($0) } }
            if let back { recoveries.append(back) } else { findings.fail("wave \(wave + 1): the API did not answer within 60 s") }
            findings.check(Processes.isRunning(pid), "serve ended during wave \(wave + 1)")
        }
        usleep(500_000)
        let answered = (0..<100).filter { _ in ServerAttack.request(port: port, probe, seconds: 10).status == 401 }.count
        findings.check(answered == 100, "\(100 - answered) of 100 requests after the waves unanswered")
        kill(pid, SIGTERM)
        let end = Processes.wait(pid, timeout: 30)
        findings.check(end.status == 0 && end.signal == nil && !end.timedOut, "serve did not stop cleanly: \(end)")
        let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        findings.check(size < 16_384, "serve wrote \(size) bytes of output")
        let text = Processes.read(log)
        findings.check(!text.contains("EXTERNAL_LOGGER"), "libmicrohttpd warned about its options at start")
        let slowest = recoveries.max() ?? 0
        return (findings, "\(waves) waves × 200 idle connections under ulimit -n 48: the API back after \(recoveries.map { String(format: "%.1f", $0) }.joined(separator: ", ")) s (slowest \(String(format: "%.1f", slowest)) s), \(answered)/100 requests answered after, output \(size) bytes, serve stopped cleanly")
    }

    /// Two `serve`s on one store, a folder where the sender lock goes (before: each sent, and 5
    /// notifications arrived 9 times): nothing sent while it is there, each says why once; once it
    /// goes, every notification reaches the receiver once.
    static func senderLock(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("sender-lock")
        let store = folder + "/s.sqlite"
        findings.check(context.run(store, ["products"]).status == 0, "the store was not made")
        let lock = URL(fileURLWithPath: store).resolvingSymlinksInPath().path + "-sender.lock"
        findings.check(mkdir(lock, 0o700) == 0, "cannot put a folder where the lock goes")
        let receiver: ServerAttack.Receiver
        do {
            receiver = try ServerAttack.Receiver(.good)
        } catch {
            findings.fail("cannot start the receiver: \(error)")
            return (findings, "")
        }
        defer { receiver.http.stop() }
        var servers: [(pid: pid_t, log: String)] = []
        for name in ["first", "second"] {
            let log = folder + "/\(name).log"
            guard let pid = Processes.spawn([context.storefront, "--catalog", context.catalog, "--store", store, "serve",
                                             "--listen", "127.0.0.1:0", "--notify", receiver.url], stdout: log, stderr: log),
                  port(of: log) != nil else {
                findings.fail("the \(name) serve did not start")
                return (findings, "")
            }
            servers.append((pid, log))
        }
        let purchases = context.quick ? 8 : 20
        var bought = 0
        for _ in 0..<purchases where context.run(store, ["buy", Demo.coins]).status == 0 { bought += 1 }
        findings.check(bought == purchases, "\(purchases - bought) purchases failed")
        sleep(3)
        let whileHeld = receiver.delivered.count
        findings.check(whileHeld == 0, "\(whileHeld) notifications sent without the lock")
        rmdir(lock)
        let deadline = Date().addingTimeInterval(60)
        while receiver.delivered.count < purchases, Date() < deadline { usleep(100_000) }
        // One more, after: anything sent twice would be in by the time it is.
        findings.check(context.run(store, ["buy", Demo.coins]).status == 0, "the last purchase failed")
        while receiver.delivered.count < purchases + 1, Date() < deadline { usleep(100_000) }
        usleep(500_000)
        let delivered = receiver.delivered
        let lost = purchases + 1 - Set(delivered).count
        let doubled = delivered.count - Set(delivered).count
        findings.check(lost == 0, "\(lost) notifications never arrived")
        findings.check(doubled == 0, "\(doubled) notifications arrived twice")
        var said = 0, sending = 0
        for server in servers {
            kill(server.pid, SIGTERM)
            let end = Processes.wait(server.pid, timeout: 30)
            findings.check(end.status == 0 && end.signal == nil, "a serve did not stop cleanly: \(end)")
            let text = Processes.read(server.log)
            let reasons = text.components(separatedBy: "cannot be taken").count - 1
            findings.check(reasons == 1, "a serve said why it does not send \(reasons) times")
            said += reasons
            if text.contains("now sending notifications") { sending += 1 }
        }
        findings.check(sending == 1, "\(sending) servers took up sending once the lock could be taken")
        return (findings, "2 servers, a folder where the sender lock goes: \(purchases) purchases, \(whileHeld) sent while it was there, \(said) reasons said (one each); then \(sending) sender, \(delivered.count) delivered for \(purchases + 1), \(lost) lost, \(doubled) doubled")
    }
}

extension ServerLimits {
    /// Another process holds the store's write lock while test-notification requests wait for it
    /// in `serve` (one, then four at once; before, a history read took 13.5 s behind one waiting
    /// write and 37 s behind four, and a writer got a 500 after 32 s): reads answer meanwhile, in
    /// milliseconds, and every waiting write succeeds once the lock is let go.
    static func readsBesideWrites(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("reads-beside-writes")
        let store = folder + "/s.sqlite"
        let bought = context.run(store, ["buy", Demo.coins, "--json"])
        guard let json = try? JSONSerialization.jsonObject(with: Data(bought.stdout.utf8)) as? [String: Any],
              let id = (json["transaction"] as? [String: Any])?["id"] as? Int else {
            findings.fail("the first purchase failed: \(bought.stdout)\(bought.stderr)")
            return (findings, "")
        }
        guard let credentials = APICredentials(store: store, folder: folder, context, findings) else { return (findings, "") }
        let log = folder + "/serve.log"
        guard let pid = Processes.spawn([context.storefront, "--catalog", context.catalog, "--store", store, "serve",
                                         "--listen", "127.0.0.1:0"], stdout: log, stderr: log),
              let port = port(of: log) else {
            findings.fail("serve did not start")
            return (findings, "")
        }
        defer { kill(pid, SIGKILL) }
        let token = credentials.token()
        func get(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n" }
        let reads = ["/inApps/v1/transactions/\(id)", "/inApps/v2/history/\(id)", "/inApps/v1/transactions/\(id)"]
        let write = "POST /inApps/v1/notifications/test HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\nContent-Length: 0\r\n\r\n"
        let hold: Double = 6
        var latencies: [Double] = []
        var readFailures = 0, writes = 0, writesAnswered = 0, writesEarly = 0
        let rounds = context.quick ? [1, 4] : [1, 4, 1, 4]
        for writers in rounds {
            // Another process takes the write lock and keeps it about `hold` seconds, while reads go on.
            guard let holder = WriteLockHolder(store: store, folder: folder) else {
                findings.fail("sqlite3 did not take the write lock in 20 s")
                break
            }
            let taken = Date()
            let waiting = (0..<writers).map { _ in
                Task.detached { (ServerAttack.request(port: port, write, seconds: 60).status, Date()) }
            }
            usleep(300_000)  // the writes wait for the lock now
            // Reads, one after another, while the lock is still held.
            while Date().timeIntervalSince(taken) < hold - 1 {
                for path in reads {
                    let start = Date()
                    let status = ServerAttack.request(port: port, get(path), seconds: 60).status
                    latencies.append(Date().timeIntervalSince(start))
                    if status != 200 { readFailures += 1 }
                }
            }
            let released = Date()
            holder.letGo()
            for task in waiting {
                let (status, answered) = await task.value
                writes += 1
                if status == 200 { writesAnswered += 1 }
                // Answered before the lock was let go: it never waited, and the reads proved nothing.
                if answered < released { writesEarly += 1 }
            }
        }
        findings.check(writesEarly == 0, "\(writesEarly) writes were answered while the lock was held: they did not wait")
        findings.check(readFailures == 0, "\(readFailures) reads beside the held lock did not answer 200")
        findings.check(writesAnswered == writes, "\(writes - writesAnswered) of \(writes) waiting writes failed once the lock was let go")
        let sorted = latencies.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        let slowest = sorted.last ?? 0
        // A read queued behind a waiting write would last until the lock was let go (about 5 s).
        findings.check(slowest < 2, String(format: "the slowest read beside a waiting write took %.2f s", slowest))
        findings.check(Processes.isRunning(pid), "serve ended")
        return (findings, String(format: "the write lock held %.0f s by another process %d times, with 1 or 4 writes waiting in serve: %d reads meanwhile, median %.1f ms, slowest %.1f ms, %d not 200; %d/%d waiting writes answered 200 once it was let go",
                                 hold, rounds.count, latencies.count, median * 1000, slowest * 1000, readFailures, writesAnswered, writes))
    }
}
