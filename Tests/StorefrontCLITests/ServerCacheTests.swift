import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import StoreEngine
import Testing

/// `storefront serve` keeps a checked bearer token until it expires, and Get Transaction
/// Info's answers while the store file is unchanged: neither outlives what it depends on.
@Suite("serve: kept tokens and answers", .serverLane)
struct ServerCacheTests {
    /// A bearer token for the Server API key `keyID`, signed with `key` (PKCS#8 PEM).
    func token(keyID: String, issuer: String, key pem: String, bundleID: String) throws -> String {
        let key = try SigningKey(pem: pem)
        let now = Int(Date().timeIntervalSince1970)
        let header = JSON.object(["alg": .string("ES256"), "kid": .string(keyID), "typ": .string("JWT")])
        return try key.sign(.object(["iss": .string(issuer), "iat": .integer(now), "exp": .integer(now + 1200),
                                     "aud": .string("appstoreconnect-v1"), "bid": .string(bundleID)]),
                            encodedHeader: Base64URL.encode(Array(header.serialized(pretty: false).utf8)))
    }

    func get(_ port: Int, _ path: String, token: String) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("the same token again is answered from what was kept; a refund is answered anew; a removed key's token is refused at once")
    func keptUntilChanged() async throws {
        let sandbox = try Sandbox()
        let created = try await sandbox.storefront("serve", "keys", "create", "--issuer", "cache-test", "--json").jsonObject()
        let keyID = try #require(created["keyId"] as? String)
        let bought = try await sandbox.storefront("buy", Demo.swiftShopping, "--json").jsonObject()
        let id = try #require((bought["transaction"] as? [String: Any])?["id"] as? Int)
        let token = try token(keyID: keyID, issuer: "cache-test", key: try #require(created["privateKey"] as? String),
                              bundleID: try Catalog.load(contentsOf: Binary.catalog).bundleID)
        let binary = try #require(Binary.url)
        let server = try BackgroundProcess(binary, ["--catalog", Binary.catalog, "--store", sandbox.store, "serve",
                                                         "--listen", "127.0.0.1:0"],
                                                in: sandbox.folder,
                                                environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.home])
        defer { Task { await server.stop() } }
        let port = try #require(Int(try await server.wait(for: #"listening on http://127\.0\.0\.1:(\d+)"#)))
        let path = "/inApps/v1/transactions/\(id)"

        let first = try await get(port, path, token: token)
        #expect(first.status == 200, "\(first)")
        let again = try await get(port, path, token: token)
        #expect(again.status == 200 && again.body == first.body)

        try await sandbox.storefront("refund", String(id)).expect(exit: 0)
        let refunded = try await get(port, path, token: token)
        #expect(refunded.status == 200 && refunded.body != first.body, "the refund's new signature, not the kept answer")

        try await sandbox.storefront("serve", "keys", "remove", keyID).expect(exit: 0)
        #expect(try await get(port, path, token: token).status == 401)
        #expect(try await get(port, path, token: token).status == 401)
    }
}
