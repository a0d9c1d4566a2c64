extension Store {
    /// The root certificate of the store's chain: what a server trusts in place of
    /// Apple's root to verify this store's signed data (`key export --root`).
    public func rootCertificate() -> Certificate {
        ledger.key.rootCertificate
    }

    /// The store's certificate chain: leaf (the signing key), intermediate, root.
    public func certificateChain() -> CertificateChain {
        ledger.key.chain
    }
}
