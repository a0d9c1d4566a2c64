extension Store {
    /// The root certificate of the store's chain.
    func rootCertificate() -> Certificate {
        signer.rootCertificate
    }

    /// The store's certificate chain: leaf (the signing key), intermediate, root.
    func certificateChain() -> CertificateChain {
        signer.chain
    }
}
