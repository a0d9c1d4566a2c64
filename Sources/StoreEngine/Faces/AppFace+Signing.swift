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

extension AppFace {
    /// The chain that signs app receipts (RSA: leaf, intermediate, root), issued at the store's first
    /// receipt; its root is what a receipt verifier trusts in place of Apple Root CA (`key export --receipt --root`).
    public func receiptCertificateChain() async throws -> CertificateChain {
        try await store.receiptSigner().chain
    }

    /// The receipt-signing RSA key's public half (SubjectPublicKeyInfo PEM): `key export --receipt`.
    public func receiptPublicKeyPEM() async throws -> String {
        try await store.receiptSigner().key.publicKeyPEM
    }
}
