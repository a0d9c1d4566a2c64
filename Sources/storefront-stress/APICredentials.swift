import Foundation
import StoreEngine

/// A Server API key added to a store (`serve keys add`), and the bearer tokens it signs: what a
/// backend sends `serve`.
struct APICredentials: Sendable {
    let key: SigningKey
    let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    let bundleID: String

    /// Makes a key and adds it to `store`'s keys (its public half written into `folder`); nil,
    /// with the finding, when the key, the catalog or the command fails.
    init?(store: String, folder: String, _ context: Context, _ findings: Findings) {
        guard let key = try? SigningKey.generate(), let bytes = FileManager.default.contents(atPath: context.catalog),
              let catalog = try? Catalog.parse(Array(bytes), file: context.catalog) else {
            findings.fail("cannot make a key or read the catalog")
            return nil
        }
        self.key = key
        bundleID = catalog.bundleID
        let pem = folder + "/key.pem"
        _ = FileManager.default.createFile(atPath: pem, contents: Data(key.publicKeyPEM.utf8))
        guard findings.check(context.run(store, ["serve", "keys", "add", key.keyID, "--issuer", issuer, "--public-key", pem]).status == 0,
                             "serve keys add") else { return nil }
    }

    /// A bearer token good for 30 minutes from now.
    func token() -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return (try? key.sign(.object(["iss": .string(issuer), "iat": .integer(now), "exp": .integer(now + 1800),
                                       "aud": .string("appstoreconnect-v1"), "bid": .string(bundleID)]))) ?? ""
    }
}
