extension AppFace {
    /// The root certificate of the store's own certificate authority: what a server
    /// trusts in place of Apple's root to verify this store's signed data (`key export --root`).
    public func rootCertificate() async -> Certificate {
        await store.rootCertificate()
    }

    /// The chain every JWS carries in its `x5c` header: leaf (the signing key), intermediate, root.
    public func certificateChain() async -> CertificateChain {
        await store.certificateChain()
    }
}
