extension Store {
    /// The root certificate of the store's chain.
    func rootCertificate() -> Certificate {
        ledger.key.rootCertificate
    }

    /// The store's certificate chain: leaf (the signing key), intermediate, root.
    func certificateChain() -> CertificateChain {
        ledger.key.chain
    }
}
