import Foundation
import StoreEngine
import StorefrontUI

/// `app-transaction`: the account's signed `AppTransaction`.
struct AppTransactionCommand: StorefrontCommand {
    static var help: CommandHelp { OfferCommands.appTransactionHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self()
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? { try await session.appTransaction() }
}

/// `offer-keys [add | create | remove]`: the promotional offer keys.
enum OfferKeysCommand: StorefrontCommand {
    /// `offer-keys`: the keys registered.
    case list
    /// `offer-keys add KEY_ID FILE [--issuer ID]`.
    case add(keyID: String, path: String, issuer: String?)
    /// `offer-keys create [KEY_ID] [--issuer ID]`: prints the private key once.
    case create(keyID: String?, issuer: String?)
    /// `offer-keys remove KEY_ID`: its signatures are refused from now on.
    case remove(keyID: String)

    static var help: CommandHelp { OfferCommands.offerKeysHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let (args, issuer) = (line.args, try line.value(SharedOptions.issuer))
        switch (args.first, args.count) {
        case (nil, _) where issuer == nil: return .list
        case ("add", 3) where !args[1].isEmpty: return .add(keyID: args[1], path: args[2], issuer: issuer)
        case ("create", 1): return .create(keyID: nil, issuer: issuer)
        case ("create", 2) where !args[1].isEmpty: return .create(keyID: args[1], issuer: issuer)
        case ("remove", 2) where !args[1].isEmpty && issuer == nil: return .remove(keyID: args[1])
        default: throw UsageError(description: "offer-keys takes nothing, add KEY_ID FILE, create [KEY_ID] or remove KEY_ID", command: line.name)
        }
    }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .list: try await session.offerKeys()
        case .add(let keyID, let path, let issuer): try await session.offerKeysAdd(keyID: keyID, path: path, issuer: issuer)
        case .create(let keyID, let issuer): try await session.offerKeysCreate(keyID: keyID, issuer: issuer)
        case .remove(let keyID): try await session.offerKeysRemove(keyID)
        }
    }
}

/// `offer sign PRODUCT OFFER [--key KEY_ID] [--legacy] [--app-account-token UUID]`: a promotional
/// offer signed as the app's server would.
struct OfferCommand: StorefrontCommand {
    var productID: String
    var offerID: String
    var keyID: String?
    var appAccountToken: UUID?
    var legacy = false

    static let key = Option<String>.text("--key", value: "KEY_ID", nonEmpty: "a key id", "the offer key to sign with (offer-keys)")
    static let legacy = Flag("--legacy", "the legacy form (key id, nonce, timestamp, signature) instead of a compact JWS")

    static var help: CommandHelp { OfferCommands.offerHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let (keyID, token) = (try line.value(key), try line.value(SharedOptions.appAccountToken))
        let args = line.args
        guard args.count == 3, args[0] == "sign", !args[1].isEmpty, !args[2].isEmpty else {
            throw UsageError(description: "offer takes sign PRODUCT_ID OFFER_ID", command: line.name)
        }
        return Self(productID: args[1], offerID: args[2], keyID: keyID, appAccountToken: token, legacy: line.has(legacy))
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? {
        try await session.offerSign(productID, offerID, keyID: keyID, appAccountToken: appAccountToken, legacy: legacy)
    }
}

/// `redeem CODE`: an offer code, as the App Store's redeem sheet.
struct RedeemCommand: StorefrontCommand {
    var code: String

    static var help: CommandHelp { OfferCommands.redeemHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "a CODE")
        try line.allow()
        return Self(code: line.args[0])
    }

    var needsCatalog: Bool { true }

    func run(in session: Session) async throws -> Report? { try await session.redeem(code) }
}

/// The app transaction, promotional offer keys and signatures, and offer codes.
enum OfferCommands {
    static let appTransactionHelp = CommandHelp(
        name: "app-transaction", usage: "app-transaction [--json]",
        summary: "Show the account's signed AppTransaction, as AppTransaction.shared",
        details: """
            Prints the app transaction the App Store signs for this account and app: bundle id,
            app version and original app version ("1.0", as in the sandbox), the original
            purchase date (when the account first used the store), the appTransactionId every
            transaction of the account carries, and the environment (the environment setting).
            It is a JWS signed with the store's x5c chain, as transactions are: a server decodes
            it with the App Store Server Library's verify_and_decode_app_transaction.
            --json prints its fields and "jwsRepresentation".
            """)

    static let offerKeysHelp = CommandHelp(
        name: "offer-keys", usage: "offer-keys [add KEY_ID FILE [--issuer ID] | create [KEY_ID] [--issuer ID] | remove KEY_ID] [--json]",
        summary: "The keys that sign promotional offers (App Store Connect's In-App Purchase keys)",
        details: """
            Lists the keys the store accepts promotional offer signatures from; a .storekit
            catalog's subscriptionOffersKeyPair is among them while the store runs on it.
              add KEY_ID FILE   registers a P-256 key in PEM: the .p8 private key App Store Connect
                                gives (offer sign and buy --sign can then sign with it), or a
                                public key (signatures from your server are verified; the store
                                cannot make its own)
              create [KEY_ID]   makes a key (a random id unless given) and prints its private key
                                once (save it as SubscriptionKey_KEY_ID.p8 for your server); the
                                store keeps it too, to sign for offer sign
              remove KEY_ID     forgets the key, as revoking it in App Store Connect: signatures
                                made with it fail with invalidOfferSignature from now on
              --issuer ID       the issuer id the compact JWS form's iss must be (default: any)
            """,
        options: [SharedOptions.issuer.spec], operands: [.words(["add", "create", "remove"]), .text, .file])

    static let offerHelp = CommandHelp(
        name: "offer", usage: "offer sign PRODUCT_ID OFFER_ID [--key KEY_ID] [--legacy] [--app-account-token UUID] [--json]",
        summary: "Sign a promotional offer as the app's server would",
        details: """
            Prints a fresh promotional offer signature for this account, made with a registered key
            whose private half the store holds (the only one, or --key), for
            `buy PRODUCT_ID --offer OFFER_ID --signature SIGNATURE` or the app's
            Product.PurchaseOption.promotionalOffer. The time in it is store time.
              (default)   Apple's newer compact JWS (ES256, kid; claims bid, iss, aud
                          "promotional-offer", iat, nonce, productId, offerIdentifier and the
                          account's appTransactionId as transactionId)
              --legacy    the legacy form, printed as KEY_ID:NONCE:TIMESTAMP:SIGNATURE: the base64
                          DER ECDSA-SHA256 signature over bundle id, key id, product, offer,
                          appAccountToken, nonce and timestamp joined by U+2063
              --app-account-token UUID   the token the purchase will carry (the legacy form signs it)
            A signature is good for one purchase (its nonce), for 24 hours after its time.
            --json prints {"keyID", "form", "signature"} and, for --legacy, "nonce" and "timestamp".
            """,
        options: [OfferCommand.key.spec, OfferCommand.legacy.spec, SharedOptions.appAccountToken.spec], operands: [.words(["sign"]), .productID, .text])

    static let redeemHelp = CommandHelp(
        name: "redeem", usage: "redeem CODE [--json]",
        summary: "Redeem an offer code, as the App Store's redeem sheet",
        details: """
            Redeems a subscription offer code of the catalog (an offer of type "code": its
            oneTimeCodes and customCodes, or its id or reference name when it lists none) for the
            account. The App Store records a transaction with offerType code, the offer's reference
            name (else id) as offerID, its offerDiscountType and offerPeriod; it reaches the app as
            an update (the app is not running the purchase). A subscriber of the product gets the
            offer at the next renewal. Case does not matter; a code several offers answer to (catalog
            check notes it) goes to the one with the exact case typed, then the first this account may redeem.
            Fails with invalidOfferIdentifier for an unknown or expired code, ineligibleForOffer for
            a one-time code used already, custom codes past their redemptionLimit, an account past
            perCustomerLimit, or an account the offer's eligibility (new, existing, expired) leaves out.
            """,
        operands: [.text])
}

/// How `buy --offer` gives its promotional offer's signature.
enum OfferSigning: Equatable, Sendable {
    /// `--signature`: a compact JWS, or the legacy `KEY_ID:NONCE:TIMESTAMP:SIGNATURE`.
    case given(PromotionalOfferSignature)
    /// `--sign`: signed now as the app's server would, with the key the store holds.
    case sign(keyID: String?)
}

/// How `buy` reads its promotional offer's signature options.
struct OfferArguments {
    var signature: String?
    var sign = false

    /// How `buy --offer` signs: `--signature` or `--sign`, never both, and only with `--offer`.
    func signing(offerID: String?) throws(UsageError) -> OfferSigning? {
        if signature != nil, sign { throw UsageError(description: "buy takes --signature or --sign, not both", command: "buy") }
        if offerID == nil, signature != nil || sign {
            throw UsageError(description: "buy takes --signature and --sign with --offer", command: "buy")
        }
        if sign { return .sign(keyID: nil) }
        guard let signature else { return nil }
        guard let parsed = Self.parse(signature) else {
            throw UsageError(description: "--signature takes a compact JWS or KEY_ID:NONCE:TIMESTAMP:SIGNATURE (offer sign prints one)", command: "buy")
        }
        return .given(parsed)
    }

    /// A compact JWS (three dot-separated parts), or the legacy form's four fields joined by colons.
    static func parse(_ text: String) -> PromotionalOfferSignature? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if fields.count == 4 {
            guard !fields[0].isEmpty, let nonce = UUID(uuidString: fields[1]), let timestamp = Int64(fields[2]), !fields[3].isEmpty
            else { return nil }
            return .legacy(keyID: fields[0], nonce: nonce, timestamp: timestamp, signature: fields[3])
        }
        return text.split(separator: ".", omittingEmptySubsequences: false).count == 3 ? .compactJWS(text) : nil
    }
}

extension PromotionalOfferSignature {
    /// What `--signature` takes back: the JWS, or KEY_ID:NONCE:TIMESTAMP:SIGNATURE.
    var argument: String {
        switch self {
        case .compactJWS(let jws): jws
        case .legacy(let keyID, let nonce, let timestamp, let signature):
            "\(keyID):\(nonce.uuidString.lowercased()):\(timestamp):\(signature)"
        }
    }

    var json: JSON {
        switch self {
        case .compactJWS(let jws):
            .object(["form": .string("compactJWS"), "signature": .string(jws), "argument": .string(argument)])
        case .legacy(let keyID, let nonce, let timestamp, let signature):
            .object(["form": .string("legacy"), "keyID": .string(keyID), "nonce": .string(nonce.uuidString.lowercased()),
                     "timestamp": .integer(timestamp), "signature": .string(signature), "argument": .string(argument)])
        }
    }
}

extension AppTransaction {
    var json: JSON {
        .object([
            "bundleID": .string(bundleID),
            "appVersion": .string(appVersion),
            "originalAppVersion": .string(originalAppVersion),
            "originalPurchaseDate": .string(originalPurchaseDate.iso8601),
            "appTransactionID": .string(appTransactionID),
            "environment": .string(environment.appStoreName),
            "signedDate": .string(signedDate.iso8601),
            "jwsRepresentation": jwsRepresentation.map { .string($0) },
        ])
    }
}

extension Session {
    func appTransaction() async throws -> Report {
        let app = try await self.app.appTransaction()
        var table = Table("FIELD", "VALUE")
        table.add("bundleID", TerminalText.sanitized(app.bundleID))
        table.add("appVersion", app.appVersion)
        table.add("originalAppVersion", app.originalAppVersion)
        table.add("originalPurchaseDate", app.originalPurchaseDate.iso8601)
        table.add("appTransactionID", app.appTransactionID)
        table.add("environment", app.environment.appStoreName)
        return Report(json: app.json, table.rendered)
    }
}

extension Session {
    func offerKeys() async throws -> Report {
        let keys = try await appStore.offerKeys()
        let json = JSON.object(["keys": .array(keys.map { key in
            .object(["keyID": .string(key.keyID), "issuerID": key.issuerID.map(JSON.string), "canSign": .bool(key.canSign),
                     "created": key.isFromCatalog ? nil : .string(key.created.iso8601),
                     "fromCatalog": key.isFromCatalog ? .bool(true) : nil])
        })])
        guard !keys.isEmpty else { return Report(json: json, "No offer keys: offer-keys create makes one, offer-keys add KEY_ID FILE registers yours.") }
        var table = Table("KEY ID", "ISSUER", "SIGNS HERE", "CREATED")
        for key in keys {
            table.add(TerminalText.sanitized(key.keyID), TerminalText.sanitized(key.issuerID ?? "(any)"), key.canSign ? "yes" : "no",
                      key.isFromCatalog ? "(the catalog's subscriptionOffersKeyPair)" : key.created.iso8601)
        }
        return Report(json: json, table.rendered)
    }

    func offerKeysAdd(keyID: String, path: String, issuer: String?) async throws -> Report {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { throw ServeUsage(description: "cannot read the key \(path)") }
        guard (try? SigningKey(pem: pem)) != nil else {
            throw ServeUsage(description: "\(path) is not a P-256 key in PEM (a .p8 private key or -----BEGIN PUBLIC KEY-----)")
        }
        let key = try await appStore.addOfferKey(keyID: keyID, pem: pem, issuerID: issuer)
        return Report(json: .object(["keyID": .string(key.keyID), "canSign": .bool(key.canSign)]),
                      "Added offer key \(TerminalText.sanitized(keyID))\(key.canSign ? "" : " (public key: verifies only; offer sign cannot use it)").")
    }

    func offerKeysCreate(keyID: String?, issuer: String?) async throws -> Report {
        let (key, privateKey) = try await appStore.createOfferKey(keyID: keyID, issuerID: issuer)
        return Report(json: .object(["keyID": .string(key.keyID), "issuerID": key.issuerID.map(JSON.string), "privateKey": .string(privateKey)]), [
            "Created offer key \(TerminalText.sanitized(key.keyID)). Its private key, shown this once (save it as SubscriptionKey_\(TerminalText.sanitized(key.keyID)).p8):",
            privateKey.trimmingCharacters(in: .newlines),
        ])
    }

    func offerKeysRemove(_ keyID: String) async throws -> Report {
        guard try await appStore.removeOfferKey(keyID) else { throw ServeUsage(description: "no offer key \(keyID)") }
        return Report(json: .object(["removed": .string(keyID)]),
                      "Removed offer key \(TerminalText.sanitized(keyID)): promotional offers signed with it are refused (invalidOfferSignature).")
    }

    func offerSign(_ productID: String, _ offerID: String, keyID: String?, appAccountToken: UUID?, legacy: Bool) async throws -> Report {
        let signature = try await appStore.signPromotionalOffer(productID: productID, offerID: offerID, keyID: keyID,
                                                                appAccountToken: appAccountToken, form: legacy ? .legacy : .compactJWS)
        return Report(json: signature.json, signature.argument)
    }

    /// The signature `buy --offer` passes: given, or made now (`--sign`).
    func offerSignature(_ signing: OfferSigning?, productID: String, offerID: String?, appAccountToken: UUID?) async throws
        -> PromotionalOfferSignature? {
        switch signing {
        case nil: return nil
        case .given(let signature): return signature
        case .sign(let keyID):
            return try await appStore.signPromotionalOffer(productID: productID, offerID: offerID ?? "", keyID: keyID,
                                                           appAccountToken: appAccountToken)
        }
    }
}

extension Session {
    func redeem(_ code: String) async throws -> Report {
        let reported = try await appStore.redeemOfferCodeReporting(code)
        guard case .redeemed(_, let outcome, _, _, _) = reported else { return Report(reported, [:]) }
        let scheduled: SubscriptionChange? = if case .changeScheduled(let change) = outcome { change } else { nil }
        return Report(reported, ["result": .string(outcome.result.name), "outcome": .string(outcome.name),
                                 "transaction": outcome.transaction?.json, "change": scheduled?.json])
    }
}
