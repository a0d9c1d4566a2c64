import Foundation
import StoreEngine
import StorefrontUI

/// What a command has to say: one result, as JSON for scripts and as lines for people.
struct Report {
    var json: JSON
    var lines: [String]

    init(json: JSON, _ lines: [String]) {
        self.json = json
        self.lines = lines
    }

    init(json: JSON, _ line: String) {
        self.init(json: json, [line])
    }
}

/// One command against an open store: each command returns a ``Report``, printed here.
struct Session {
    let store: Store
    let invocation: Invocation
    let console: Console

    var app: AppFace { store.app }
    var appStore: AppStoreFace { store.appStore }
    var testSession: TestSessionFace { store.testSession }

    /// Runs `command` and prints its report as text, or as JSON with `--json`.
    func run(_ command: Command) async throws {
        // Written as it is read: a history of a million is never held whole.
        if case .transactions(false, let limit, let since, let after) = command {
            return try await listTransactions(Page(limit: limit, since: since, after: after))
        }
        guard let report = try await report(for: command) else { return }
        if invocation.json {
            console.out(report.json.serialized())
        } else {
            report.lines.forEach(console.out)
        }
    }

    /// The report of one command, unprinted (scenarios read it). Internal for them.
    func report(for command: Command) async throws -> Report? {
        switch command {
        // The app's face
        case .products: return try await products()
        case .buy(let productID, let quantity, let choice, let offerID, let appAccountToken, let signing, let winBack):
            return try await buy(productID, quantity: quantity, choice: choice, offerID: offerID, appAccountToken: appAccountToken,
                                 offerSigning: signing, winBackOfferID: winBack)
        case .restore: return try await restore()
        case .transactions(let pending, let limit, let since, let after):
            return pending ? try await pendingRequests() : try await transactionsReport(Page(limit: limit, since: since, after: after))
        case .entitlements: return try await entitlements()
        case .consume(let productID, let quantity): return try await consume(productID, quantity: quantity)
        case .exportKey:
            // PEM with or without --json: it is what verifiers read.
            console.out(app.publicKeyPEM.trimmingCharacters(in: .newlines))
            return nil
        case .exportRoot(let der):
            // The certificate a server trusts in place of Apple's root: PEM, or DER bytes.
            let root = await app.rootCertificate()
            if der { console.outData(Data(root.der)) } else { console.out(root.pem.trimmingCharacters(in: .newlines)) }
            return nil
        case .verify(let jws): return try await verify(jws)
        case .appTransaction: return try await appTransaction()
        case .redeem(let code): return try await redeem(code)
        case .messages: return try await messages()
        case .messageShow(let id): return try await showMessage(id)
        case .messageDefer(let id): return try await deferMessage(id)
        case .messageSend(let reason): return try await sendMessage(reason)
        case .priceIncrease(let productID, let price, let consent):
            return try await priceIncrease(productID, price: price, consentRequired: consent)
        case .priceIncreases: return try await priceIncreases()
        case .priceIncreaseAnswer(let productID, let consent): return try await answerPriceIncrease(productID, consent: consent)
        case .offerKeys: return try await offerKeys()
        case .offerKeysAdd(let keyID, let path, let issuer): return try await offerKeysAdd(keyID: keyID, path: path, issuer: issuer)
        case .offerKeysCreate(let keyID, let issuer): return try await offerKeysCreate(keyID: keyID, issuer: issuer)
        case .offerKeysRemove(let keyID): return try await offerKeysRemove(keyID)
        case .refundRequestBegin(let id, let reason): return try await beginRefundRequest(id, reason: reason)
        case .offerSign(let productID, let offerID, let keyID, let token, let legacy):
            return try await offerSign(productID, offerID, keyID: keyID, appAccountToken: token, legacy: legacy)
        // The App Store's face
        case .status(let groupID): return try await status(groupID)
        case .autoRenew(let group, let on):
            try await appStore.setAutoRenew(groupID: group, on)
            return try await status(group, headline: "Auto-renew is \(on ? "on" : "off").")
        case .expire(let group):
            try await appStore.expireSubscription(groupID: group)
            return try await status(group, headline: "Expired now.")
        case .renew(let group):
            try await appStore.renewSubscription(groupID: group)
            return try await status(group, headline: "Renewed now.")
        case .buyOutside(let productID, let quantity): return try await buyOutside(productID, quantity: quantity)
        case .approve(let id): return try await completed(try await appStore.approve(id), id, "Approved")
        case .decline(let id): return try await changed(try await appStore.decline(id), "Declined")
        case .resolve(let id): return try await completed(try await appStore.resolve(id), id, "Resolved")
        case .refund(let id, let reason): return try await changed(try await appStore.refund(id, reason: reason), "Refunded")
        case .deleteTransaction(let id): return try await deleteTransaction(id)
        case .refundRequests: return try await refundRequests()
        case .refundRequestApprove(let id, let reason): return try await decideRefundRequest(id, approve: true, reason: reason)
        case .refundRequestDecline(let id): return try await decideRefundRequest(id, approve: false, reason: nil)
        // The test session's face
        case .clock: return try await clock()
        case .advanceClock(let duration): return try await advanceClock(duration)
        case .accounts: return try await accounts()
        case .createAccount(let name): return try await createAccount(name)
        case .switchAccount(let name): return try await switchAccount(name)
        case .families: return try await families()
        case .familyCreate(let name): return try await createFamily(name)
        case .familyAdd(let name, let account): return try await addFamilyMember(account, to: name)
        case .familyRemove(let name, let account): return try await removeFamilyMember(account, from: name)
        case .reset(let scope): return try await reset(scope)
        case .settings: return try await settings()
        case .setSetting(let name, let value, let once): return try await setSetting(name, value, once: once)
        case .log(let limit): return try await log(limit: limit)
        case .serveKeys: return try await serveKeys()
        case .serveKeysAdd(let keyID, let issuer, let path): return try await serveKeysAdd(keyID: keyID, issuer: issuer, path: path)
        case .serveKeysCreate(let issuer): return try await serveKeysCreate(issuer: issuer)
        case .serveKeysRemove(let keyID): return try await serveKeysRemove(keyID)
        case .serveURLs: return try await serveURLs()
        case .serveURLsAdd(let url): return try await serveURLsAdd(url)
        case .serveURLsRemove(let url): return try await serveURLsRemove(url)
        case .notifications: return try await notifications()
        case .paywall, .help, .version, .catalogCheck, .catalogConvert, .doctor, .completions, .manPage, .complete, .serve, .replay: return nil
        }
    }

    /// A product's name as the current storefront shows it, cleaned for the terminal.
    func displayName(_ productID: String) async throws -> String {
        TerminalText.sanitized(try await app.product(id: productID)?.displayName ?? productID)
    }

    /// A transaction's price in its own storefront's currency.
    func displayPrice(_ transaction: Transaction) async throws -> String { transaction.displayPrice }
}

/// `accounts create` named an account that exists (exit 1).
struct AccountExists: Error {
    var name: String
}

/// `verify` found the JWS wanting (exit 1).
struct VerifyFailed: Error {
    var reason: String
}

extension Command {
    /// Whether the command plays the app (which delivers waiting transactions when it
    /// starts), rather than the App Store, a parent, or the tester.
    var actsAsTheApp: Bool {
        switch self {
        case .paywall, .products, .buy, .restore, .entitlements, .consume: true
        default: false
        }
    }
}
