import Foundation
import StoreSigning

/// The receipt signer in the store: the RSA key that signs app receipts, with its chain, issued the
/// first time the store signs a receipt and kept beside the ES256 key (docs/storekit1.md).
///
/// A chain of its own, under a root of its own, as Apple's receipts chain to Apple Root CA and its
/// JWS to Apple Root CA - G3: the ES256 chain's root and intermediate keys are thrown away once they
/// have signed (CertificateChain), so a store made before this key existed could not have it issued
/// under its own root without keeping a CA key in the file; and an RSA key costs a tenth of a second
/// or more to make, which every store made (tests make thousands) would pay for a receipt few ask for.
extension Ledger {
    /// The one row of the receipt signer: made with every store, and on opening one made before it
    /// (SQLite and PostgreSQL alike); the row itself at the store's first receipt. Idempotent.
    static let receiptSigningKeyTable = """
        CREATE TABLE IF NOT EXISTS receipt_signing_key (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            private_key TEXT NOT NULL,               -- PKCS#8 PEM of the RSA 2048 key that signs app receipts
            leaf_certificate TEXT NOT NULL,          -- PEM certificates of its chain (a root of its own)
            intermediate_certificate TEXT NOT NULL,
            root_certificate TEXT NOT NULL
        );
        """

    /// The store's receipt signer; issued (key and chain, at store time) on first need. Two processes
    /// issuing at once keep the first one stored: each signs with what the store holds.
    package func receiptSigner() throws -> ReceiptSigner {
        if let receiptKey { return receiptKey }
        if let stored = try storedReceiptSigner() {
            receiptKey = stored
            return stored
        }
        // Made outside the write: an RSA key takes long enough that the store's lock should not wait on it.
        let issued = try ReceiptSigner.issue(at: try signingTime())
        try write {
            try db.run("""
                INSERT INTO receipt_signing_key (id, private_key, leaf_certificate, intermediate_certificate, root_certificate)
                VALUES (1, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, issued.key.privateKeyPEM, issued.chain.leaf.pem, issued.chain.intermediate.pem, issued.chain.root.pem)
        }
        guard let stored = try storedReceiptSigner() else {
            throw VerificationFailure(description: "the receipt-signing key was not kept in the store")
        }
        receiptKey = stored
        return stored
    }

    /// The receipt signer the store holds, or nil before its first receipt.
    private func storedReceiptSigner() throws -> ReceiptSigner? {
        let rows = try db.rows("""
            SELECT private_key, leaf_certificate, intermediate_certificate, root_certificate FROM receipt_signing_key WHERE id = 1
            """) { ($0.text(.private_key), $0.text(.leaf_certificate), $0.text(.intermediate_certificate), $0.text(.root_certificate)) }
        guard let (key, leaf, intermediate, root) = rows.first else { return nil }
        let chain = CertificateChain(leaf: try Certificate(pem: leaf), intermediate: try Certificate(pem: intermediate),
                                     root: try Certificate(pem: root))
        return try ReceiptSigner(key: try SigningKey(pem: key), chain: chain)
    }
}
