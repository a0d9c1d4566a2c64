import Foundation
import StoreCatalog
import StoreSigning

extension Ledger {
    /// Takes the bundle id the newest signed transaction names (else the default): without a
    /// catalog, what the file's transactions were signed for is the app's bundle id.
    package func adoptSignedBundleID() {
        bundleID = signedBundleID() ?? Catalog.defaultBundleID
    }

    /// The bundle id the newest signed transaction names: the app the file's purchases are for
    /// (nil when nothing is signed yet).
    package func signedBundleID() -> String? {
        let newest = try? db.rows("SELECT jws FROM transactions WHERE jws IS NOT NULL ORDER BY id DESC LIMIT 1") {
            $0.text(.jws)
        }
        guard let jws = newest?.first else { return nil }
        let parts = jws.split(separator: ".")
        guard parts.count == 3, let bytes = Base64URL.decode(parts[1]), let payload = try? JSON.parse(bytes),
              case .string(let bundle)? = payload["bundleId"], !bundle.isEmpty else { return nil }
        return bundle
    }
}
