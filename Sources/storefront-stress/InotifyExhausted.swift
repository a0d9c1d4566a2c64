import Foundation
import Glibc
import class StoreEngine.StoreChangeFeed
import StorefrontKit
import Synchronization
import TestSupport

/// The user's inotify instances all taken (`fs.inotify.max_user_instances`) by a child for a
/// moment, while a StorefrontKit listener starts on a store: `Transaction.updates` still hands it
/// another process's purchase (the change feed polls), and the feed watches with inotify again
/// once the instances are free. The limit is per user: every process of the user is short of
//// instances while the child holds them, so it holds them three seconds at most, and lets go as
/// soon as the purchase arrived.
enum InotifyExhausted {
    /// The child (`child-inotify-hog SECONDS`): takes inotify instances until the kernel refuses,
    /// prints `held N errno E`, keeps taking any that another process frees, and exits after `seconds`.
    static func hog(seconds: Double) -> Int32 {
        var held = 0
        var refusal: Int32 = 0
        func take() {
            while true {
                guard inotify_init1(Int32(IN_CLOEXEC)) >= 0 else {
                    refusal = errno
                    return
                }
                held += 1
            }
        }
        take()
        print("held \(held) errno \(refusal)")
        fflush(nil)
        let end = Date().addingTimeInterval(min(seconds, 3))
        while Date() < end {
            usleep(1000)
            take()
        }
        print("released")
        fflush(nil)
        return 0
    }

    /// The updates the listener got: transaction id, and how the feed heard then.
    private final class Heard: Sendable {
        let updates = Mutex<[(id: String, hearing: StoreChangeFeed.Hearing, at: Date)]>([])

        func arrival(of id: String) -> (hearing: StoreChangeFeed.Hearing, at: Date)? {
            updates.withLock { $0.first { $0.id == id }.map { ($0.hearing, $0.at) } }
        }
    }

    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("inotify-exhausted")
        let store = folder + "/store.sqlite"
        _ = context.run(store, ["products"])
        let feed: StoreChangeFeed
        do {
            try StorefrontKit.configure(catalog: context.catalog, store: store)
            feed = try StoreContext.resolve().store.changes
        } catch {
            findings.fail("StorefrontKit could not open the store: \(error)")
            return (findings, "no listener")
        }
        func purchaseID(_ stdout: String) -> String? {
            stdout.split(separator: "\n").first { $0.contains("\"id\"") }.map { String($0.filter(\.isNumber)) }
        }
        func wait(_ seconds: Double, until condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !condition(), Date() < deadline { usleep(5000) }
            return condition()
        }

        // The child takes every instance left to the user.
        let hogLog = folder + "/hog.log"
        guard let hog = Processes.spawn([context.stress, "child-inotify-hog", "3"], stdout: hogLog, stderr: hogLog) else {
            findings.fail("the child that takes inotify instances did not start")
            return (findings, "no child")
        }
        guard wait(10, until: { Processes.read(hogLog).contains("held") }) else {
            kill(hog, SIGKILL)
            _ = Processes.wait(hog, timeout: 10)
            findings.fail("the child took no inotify instances: \(Processes.read(hogLog).suffix(200))")
            return (findings, "no exhaustion")
        }
        let holdStart = Date()
        let words = Processes.read(hogLog).split(whereSeparator: \.isWhitespace)
        let held = words.count > 1 ? String(words[1]) : "?"
        let refusal = words.count > 3 ? Int32(words[3]) ?? 0 : 0
        findings.check(refusal == EMFILE, "inotify_init1 refused the child with errno \(refusal), not EMFILE")

        // The listener starts while no instance is left: its feed polls.
        let heard = Heard()
        let listener = Task {
            for await update in Transaction.updates {
                if case .verified(let transaction) = update {
                    let hearing = feed.hearing
                    heard.updates.withLock { $0.append((String(transaction.id), hearing, Date())) }
                }
            }
        }
        _ = wait(10) { feed.hearing != .notStarted }
        let started = feed.hearing
        findings.check(started == .polling(errno: EMFILE), "the feed started without inotify and hears by \(started), not by polling")

        // Another process buys while the instances are taken: outside the app (`buy` alone finishes
        // the purchase, as the app would), so the app gets it as an update.
        let buyLog = folder + "/buy.log"
        let buyStart = Date()
        var firstID: String?
        var firstArrival: (hearing: StoreChangeFeed.Hearing, at: Date)?
        if let buyer = Processes.spawn([context.storefront, "--catalog", context.catalog, "--store", store, "buy", Demo.coins, "--outside", "--json"],
                                       stdout: buyLog, stderr: folder + "/buy.err") {
            let exit = await Processes.exit(of: buyer, timeout: .seconds(60))
            findings.check(exit.status == 0 && !exit.timedOut, "the purchase failed: \(Processes.read(folder + "/buy.err").suffix(300))")
            firstID = purchaseID(Processes.read(buyLog))
            if let firstID {
                _ = wait(30) { heard.arrival(of: firstID) != nil }
                firstArrival = heard.arrival(of: firstID)
            }
        } else {
            findings.fail("the purchase did not start")
        }
        // The child lets go after three seconds by itself ("released"): was the purchase there before?
        let duringHold = firstArrival != nil && !Processes.read(hogLog).contains("released")
        kill(hog, SIGTERM)
        _ = await Processes.exit(of: hog, timeout: .seconds(10))
        let holdEnd = Date()
        findings.check(firstArrival != nil, "Transaction.updates never handed over the purchase made while inotify was exhausted")

        // Instances free again: the feed watches with inotify again, and the next purchase arrives.
        let backAfter = Date()
        let back = wait(15) { feed.hearing == .inotify }
        findings.check(back, "the feed still hears by \(feed.hearing) 15 s after inotify instances were free again")
        let secondStart = Date()
        let second = context.run(store, ["buy", Demo.coins, "--outside", "--json"])
        let secondID = purchaseID(second.stdout)
        var secondArrival: Date?
        if let secondID, second.status == 0 {
            _ = wait(30) { heard.arrival(of: secondID) != nil }
            secondArrival = heard.arrival(of: secondID)?.at
        }
        findings.check(secondArrival != nil, "the purchase after inotify came back never arrived: \(second.summary)")
        listener.cancel()

        func ms(_ from: Date, _ to: Date?) -> String { to.map { String(format: "%.0f ms", $0.timeIntervalSince(from) * 1000) } ?? "never" }
        return (findings, "\(held) inotify instances taken by a child for \(String(format: "%.1f", holdEnd.timeIntervalSince(holdStart))) s "
            + "(then refused with errno \(refusal)): the feed heard by \(started), the purchase made then reached Transaction.updates "
            + "\(ms(buyStart, firstArrival?.at)) after the buy began (\(duringHold ? "while" : "after") the instances were held); "
            + "watching with inotify again \(ms(backAfter, back ? Date() : nil)) after they were free, the next purchase in \(ms(secondStart, secondArrival))")
    }
}
