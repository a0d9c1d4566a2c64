import Foundation
import Testing

/// `storefront transactions` pages through the history: --limit, --after (the token a page
/// ends with, like the Server API's revision) and --since, as text and as JSON.
@Suite("transactions listing: pages, tokens, dates")
struct TransactionListingTests {
    static let coins = "com.example.storefront.coins100"
    static let faces = ["com.razeware.razefaces.swiftshopping", "com.razeware.razefaces.iphonerage",
                        "com.razeware.razefaces.nightlyrage"]

    /// A store with three non-consumables and four coin purchases: seven transactions.
    func sandboxWithHistory() async throws -> Sandbox {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "includeConsumablesInHistory", "true").expect(exit: 0)
        for product in Self.faces + Array(repeating: Self.coins, count: 4) {
            try await sandbox.storefront("buy", product).expect(exit: 0)
        }
        return sandbox
    }

    func ids(_ run: RunResult) throws -> [String] {
        (try run.jsonObject()["transactions"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? Int).map(String.init) }
    }

    @Test("--limit and --after walk the history newest first, each transaction once; the last page says there is no more")
    func pagesWithTokens() async throws {
        let sandbox = try await sandboxWithHistory()
        let all = try ids(try await sandbox.storefront("transactions", "--json"))
        #expect(all.count == 7)
        #expect(all == all.sorted(by: >), "newest first")

        var seen: [String] = []
        var token: String?
        for page in 1...4 {
            let run = try await sandbox.storefront(["transactions", "--json", "--limit", "3"] + (token.map { ["--after", $0] } ?? []))
            run.expect(exit: 0)
            let object = try run.jsonObject()
            seen += try ids(run)
            token = try #require(object["revision"] as? String)
            let more = try #require(object["hasMore"] as? Bool)
            #expect(more == (page < 3), "page \(page): \(run)")
            if !more { break }
        }
        #expect(seen == all)

        // As text: the table, then where the next page starts.
        let text = try await sandbox.storefront("transactions", "--limit", "2")
        text.expect(exit: 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID") == true)
        #expect(lines.filter { $0.hasPrefix("20") }.map { String($0.prefix(10)) } == Array(all.prefix(2)))
        let more = try #require(lines.last { $0.hasPrefix("More: storefront transactions --after ") }, "\(text)")
        let next = more.split(separator: " ").map(String.init)
        let rest = try await sandbox.storefront(Array(next.dropFirst(2)))  // "More:" "storefront"
        rest.expect(exit: 0)
        #expect(rest.stdout.split(separator: "\n").filter { $0.hasPrefix("20") }.map { String($0.prefix(10)) }
                == Array(all.dropFirst(2).prefix(2)))
    }

    @Test("--since lists what was purchased at or after the date; a future date lists nothing")
    func since() async throws {
        let sandbox = try await sandboxWithHistory()
        let past = try ids(try await sandbox.storefront("transactions", "--json", "--since", "2000-01-01"))
        #expect(past.count == 7)
        let future = try await sandbox.storefront("transactions", "--since", "2999-01-01T00:00:00Z")
        future.expect(exit: 0)
        #expect(future.stdout.hasPrefix("No transactions for"))
        let none = try await sandbox.storefront("transactions", "--json", "--since", "2999-01-01")
        #expect(try ids(none).isEmpty)
        #expect(try none.jsonObject()["hasMore"] as? Bool == false)
    }

    @Test("a bad token, a bad date and --pending with paging are usage errors that say what is wrong")
    func badArguments() async throws {
        let sandbox = try Sandbox()
        let token = try await sandbox.storefront("transactions", "--after", "not-a-token")
        token.expect(exit: 64)
        #expect(token.stderr.contains("--after needs the token"))
        let date = try await sandbox.storefront("transactions", "--since", "yesterday")
        date.expect(exit: 64)
        #expect(date.stderr.contains("--since needs an ISO-8601 date"))
        let pending = try await sandbox.storefront("transactions", "--pending", "--limit", "2")
        pending.expect(exit: 64)
        #expect(pending.stderr.contains("--pending takes no --limit"))
    }
}
