import Foundation

/// StoreKit 1's app receipt: made from the account's purchases as the App Store keeps them,
/// signed by the store's receipt signer (PKCS#7, SHA-256 with RSA), written where the app reads it;
/// and verifyReceipt's decisions, for the server.
extension Store {
    // MARK: - Where the app reads it

    /// The file `Bundle.main.appStoreReceiptURL` stands for: beside the store file, per account,
    /// named as on a device (`sandboxReceipt`, or `receipt` in Production).
    /// `store.sqlite` → `store.StoreKit/ACCOUNT/sandboxReceipt`. A store in PostgreSQL has no
    /// folder, and the receipt is the device's, not the team's: it goes where this machine keeps
    /// its default store, named for the database (`postgresql-1a2b3c4d.StoreKit/ACCOUNT/…`).
    func receiptURL(account: String? = nil) throws -> URL {
        let store: URL
        switch address {
        case .file(let path):
            store = URL(fileURLWithPath: path)
        case .postgreSQL:
            let name = "postgresql-" + Digest.sha256(Array(path.utf8)).prefix(4).map { String(format: "%02x", $0) }.joined()
            store = URL(fileURLWithPath: StoreLocation.defaultStorePath(environment: ProcessInfo.processInfo.environment))
                .deletingLastPathComponent().appendingPathComponent(name)
        }
        let folder = store.deletingPathExtension().lastPathComponent + ".StoreKit"
        let name = try value(.environment) == .production ? "receipt" : "sandboxReceipt"
        return store.deletingLastPathComponent().appendingPathComponent(folder)
            .appendingPathComponent(Self.receiptFolderName(account ?? self.account)).appendingPathComponent(name)
    }

    /// An account's name as one path component: no `/`, no leading dot, never empty.
    static func receiptFolderName(_ account: String) -> String {
        var name = account.map { $0 == "/" || $0 == "\u{0}" ? "_" : $0 }
        if name.first == "." || name.isEmpty { name.insert("_", at: 0) }
        return String(name)
    }

    /// The device's identifier the receipt's SHA-1 hash covers (`identifierForVendor`'s stand-in):
    /// one per account and app, made from them, so every process computes the same one.
    func deviceIdentifier(account: String? = nil) -> UUID {
        let digest = Digest.sha256(Array("deviceIdentifier\u{0}\(catalog.bundleID)\u{0}\(account ?? self.account)".utf8))
        var bytes = Array(digest.prefix(16))
        bytes[6] = bytes[6] & 0x0f | 0x50  // an RFC 4122 name-based UUID's version and variant
        bytes[8] = bytes[8] & 0x3f | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    // MARK: - Making it

    /// The receipt's payload for `account` now: every purchase the App Store keeps in a receipt —
    /// each transaction purchased (renewals too, refunded ones with their cancellation date),
    /// consumables only until the app finishes them; never a pending or declined request.
    func appReceipt(account: String? = nil, properties: ReceiptProperties = []) throws -> AppReceipt {
        try processRenewals()
        let account = account ?? self.account
        let date = try currentTime()
        let created = try ledger.write {
            try ledger.ensureAccount(account, at: date)
            return try ledger.accountCreated(account) ?? date
        }
        // Transaction.all but a refunded consumable the app finished: Apple's receipt keeps a
        // consumable "until your app finishes that transaction".
        let purchases = try ledger.appTransactions(account: account, includeFinishedConsumables: false, limit: nil)
            .filter { $0.verification.isVerified && !($0.productType == .consumable && $0.isFinished) }
            .reversed().map(AppReceipt.InAppPurchase.init)
        var opaque = [UInt8](repeating: 0, count: 16)
        var random = SystemRandomNumberGenerator()
        for index in opaque.indices { opaque[index] = random.next() }
        let bundleID = catalog.bundleID
        let production = try value(.environment) == .production
        return AppReceipt(
            // verifyReceipt's receipt_type: Production, ProductionVPP, ProductionSandbox, ProductionVPPSandbox.
            receiptType: "Production" + (properties.contains(.volumePurchase) ? "VPP" : "") + (production ? "" : "Sandbox"),
            bundleID: bundleID, appVersion: AppTransaction.sandboxVersion, opaqueValue: opaque,
            sha1Hash: try AppReceipt.sha1Hash(deviceIdentifier: deviceIdentifier(account: account), opaqueValue: opaque,
                                              bundleID: bundleID),
            creationDate: date, originalPurchaseDate: created, originalAppVersion: AppTransaction.sandboxVersion,
            expirationDate: properties.contains(.expired) ? date.addingTimeInterval(-1) : nil,
            inAppPurchases: Array(purchases))
    }

    /// The receipt for `account`, signed (PKCS#7 DER).
    func signedAppReceipt(account: String? = nil) throws -> [UInt8] {
        try receiptSigner().sign(try appReceipt(account: account))
    }

    /// `SKReceiptRefreshRequest`: makes the receipt anew and writes it where the app reads it.
    /// It asks the App Store: `latency` and `offline` apply.
    func refreshAppReceipt(properties: ReceiptProperties = []) async throws -> URL {
        try await simulateLatency()
        if try value(.offline) { throw StoreError.simulated(.networkError, cause: "offline is true") }
        let url = try receiptURL()
        let bytes = try receiptSigner().sign(try appReceipt(properties: properties))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url, options: .atomic)
        return url
    }

    /// `Bundle.main.appStoreReceiptURL`: the receipt's URL, its file brought up to date first when
    /// there is one, or when the account has bought something (StoreKit writes it after a
    /// purchase). A fresh account that never refreshed has none yet, as in Apple's sandbox.
    func appReceiptURL() throws -> URL {
        let url = try receiptURL()
        let current = try appReceipt()
        if let data = try? Data(contentsOf: url), let onFile = try? receiptSigner().open([UInt8](data)),
           onFile.inAppPurchases == current.inAppPurchases, onFile.bundleID == current.bundleID,
           onFile.receiptType.hasSuffix("Sandbox") == current.receiptType.hasSuffix("Sandbox") {
            // Kept as refreshed: a test receipt made expired or for volume purchase stays so.
            return url
        }
        guard FileManager.default.fileExists(atPath: url.path) || !current.inAppPurchases.isEmpty else { return url }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(try receiptSigner().sign(current)).write(to: url, options: .atomic)
        return url
    }

    /// The store's receipt signer (RSA, a chain of its own), issued at its first receipt.
    func receiptSigner() throws -> ReceiptSigner { try ledger.receiptSigner() }

    /// Opens a receipt: its signature and chain against the store's receipt root, then its fields.
    func openReceipt(_ der: [UInt8]) throws(ReceiptFailure) -> AppReceipt {
        let signer: ReceiptSigner
        do {
            signer = try receiptSigner()
        } catch {
            throw .notAuthentic("the store's receipt-signing key could not be read: \(error)")
        }
        return try signer.open(der)
    }

    // MARK: - verifyReceipt

    /// Apple's verifyReceipt over this store file (any account in it): the receipt's
    /// signature against the store's root, its environment against the endpoint's, the
    /// shared secret for a receipt with subscriptions, then the customer's purchases now.
    func verifyReceipt(receiptData: String, password: String?, excludeOldTransactions: Bool,
                       endpoint: VerifyReceiptEndpoint) throws -> ReceiptVerification {
        let date = try currentTime()
        func refused(_ status: VerifyReceiptStatus, _ why: String, receipt: AppReceipt? = nil) -> ReceiptVerification {
            ReceiptVerification(status: status, environment: endpoint.rawValue, receipt: receipt, requestDate: date, reason: why)
        }
        guard !receiptData.isEmpty, let der = Data(base64Encoded: receiptData, options: .ignoreUnknownCharacters) else {
            return refused(.malformedReceipt, "receipt-data is missing or not base64")
        }
        let receipt: AppReceipt
        do {
            receipt = try openReceipt([UInt8](der))
        } catch .malformed(let why) {
            return refused(.malformedReceipt, why)
        } catch .notAuthentic(let why) {
            return refused(.notAuthenticated, why)
        }
        let isProduction = !receipt.receiptType.hasSuffix("Sandbox")
        if endpoint == .production, !isProduction {
            return refused(.sandboxReceiptSentToProduction, "a sandbox receipt sent to the production endpoint")
        }
        if endpoint == .sandbox, isProduction {
            return refused(.productionReceiptSentToSandbox, "a production receipt sent to the sandbox endpoint")
        }
        guard receipt.bundleID == catalog.bundleID else {
            return refused(.notAuthenticated, "the receipt is for \(receipt.bundleID), not this store's app \(catalog.bundleID)")
        }
        try processRenewals()
        var owner: String?
        for purchase in receipt.inAppPurchases {
            for id in [purchase.transactionID, purchase.originalTransactionID] {
                if owner == nil, let number = Int64(id) { owner = try ledger.account(owning: number) }
            }
        }
        if !receipt.inAppPurchases.isEmpty, owner == nil {
            return refused(.accountNotFound, "no account in this store made the receipt's purchases")
        }
        let latest = try owner.map { try ledger.appTransactions(account: $0, includeFinishedConsumables: false, limit: nil) } ?? []
        let hasAutoRenewable = receipt.inAppPurchases.contains { $0.productType == ProductType.autoRenewable.receiptCode }
            || latest.contains { $0.productType == .autoRenewable }
        if hasAutoRenewable {
            let secret = try value(.sharedSecret)
            if !secret.isEmpty, password?.lowercased() != secret.lowercased() {
                return refused(.sharedSecretMismatch, "the password is not the shared secret on file", receipt: receipt)
            }
        }
        var answer = ReceiptVerification(status: .valid, environment: isProduction ? "Production" : "Sandbox",
                                         receipt: receipt, requestDate: date)
        answer.hasAutoRenewable = hasAutoRenewable
        if hasAutoRenewable, let owner {
            var newestOfEach = Set<Int64>()
            answer.latestTransactions = latest.filter(\.verification.isVerified).filter { transaction in
                // Newest first: the first seen of each subscription is its latest renewal.
                guard excludeOldTransactions, transaction.productType == .autoRenewable else { return true }
                return newestOfEach.insert(transaction.originalID).inserted
            }
            answer.latestReceipt = try signedAppReceipt(account: owner)
            answer.renewalInfo = try statuses(at: date, account: owner).map(\.renewalInfo)
        }
        return answer
    }
}

extension ProductType {
    /// Field 1707's value, as Apple's receipts carry it.
    var receiptCode: Int {
        switch self {
        case .nonConsumable: 0
        case .consumable: 1
        case .nonRenewable: 2
        case .autoRenewable: 3
        }
    }
}

extension AppReceipt.InAppPurchase {
    /// A transaction as its in-app purchase receipt (field 17): Apple's fields 1701–1721.
    public init(_ transaction: Transaction) {
        let subscription = transaction.productType == .autoRenewable
        let introductory = transaction.offerType == .introductory
        self.init(
            quantity: transaction.purchasedQuantity, productID: transaction.productID, transactionID: String(transaction.id),
            purchaseDate: transaction.purchaseDate, originalTransactionID: String(transaction.originalID),
            originalPurchaseDate: transaction.originalPurchaseDate, productType: transaction.productType.receiptCode,
            subscriptionExpirationDate: subscription ? transaction.expirationDate : nil,
            webOrderLineItemID: subscription ? Int64(transaction.webOrderLineItemID) : nil,
            cancellationDate: transaction.revocationDate,
            isTrialPeriod: subscription ? introductory && transaction.offerPaymentMode == .freeTrial : nil,
            isInIntroOfferPeriod: subscription ? introductory && transaction.offerPaymentMode != .freeTrial : nil,
            promotionalOfferID: transaction.offerType == .promotional ? transaction.offerID : nil)
    }
}
