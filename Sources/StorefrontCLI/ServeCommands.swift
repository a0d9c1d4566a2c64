import Dispatch
import Foundation
import StoreEngine
import StorefrontServer
import StorefrontUI

/// `notifications [--type NOTIFICATION_TYPE]`: the server notifications the store recorded, with their delivery.
struct NotificationsCommand: StorefrontCommand {
    /// `--type`: only those of this notificationType, as Get Notification History's `notificationType`.
    var notificationType: NotificationType?

    static let notificationType = Option<NotificationType>.choice(
        "--type", value: "NOTIFICATION_TYPE", NotificationType.allCases, name: { $0.rawValue },
        "only notifications of this notificationType (DID_RENEW, REFUND, …)")

    static let help = CommandHelp(
        name: "notifications", usage: "notifications [--type NOTIFICATION_TYPE] [--json]",
        summary: "The App Store Server Notifications the store recorded, with their delivery",
        details: """
            Every notification the store made (SUBSCRIBED, DID_RENEW, REFUND, …), oldest first,
            with its subtype, transaction and each delivery attempt (store time, URL and Apple's
            sendAttemptResult). --json adds the signedPayload.
              --type NOTIFICATION_TYPE   only those of that type (REFUND, DID_RENEW, …), as
                                         Get Notification History's notificationType
            """,
        options: [notificationType.spec])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self(notificationType: try line.value(notificationType))
    }

    func run(in session: Session) async throws -> Report? { try await session.notifications(of: notificationType) }
}

/// `serve`: the App Store Server API and Server Notifications V2; `serve keys`, `serve urls`: what it uses.
enum ServeCommand: StorefrontCommand {
    /// `serve`: the App Store Server API and Server Notifications V2, until stopped.
    case serve(listen: String, notify: [String], allowRemote: Bool)
    /// `serve keys`: the Server API's keys.
    case keys
    case keysAdd(keyID: String, issuer: String, publicKeyPath: String)
    case keysCreate(issuer: String?)
    case keysRemove(keyID: String)
    /// `serve urls`: the receiver URLs kept in the store (used when serve has no --notify).
    case urls
    case urlsAdd(url: String)
    case urlsRemove(url: String)

    static let help = CommandHelp(
        name: "serve", usage: "serve [--listen HOST:PORT] [--notify URL]… [--allow-remote] | serve keys [add KEY_ID --issuer ID --public-key FILE | create [--issuer ID] | remove KEY_ID] | serve urls [add URL | remove URL]",
        summary: "Run the App Store Server API and send Server Notifications V2",
        details: """
            Serves Apple's App Store Server API over the store file, for every account in it:
            transaction info, history (v1 and v2, revision paging), all subscription statuses,
            refund lookup (v2), renewal-date extension (one subscription, or all active
            subscribers of a product, with its status), consumption, test notifications,
            notification history and order lookup, with Apple's paths and error bodies.
            Requests need Apple's bearer token: an ES256 JWT (kid, iss, aud appstoreconnect-v1,
            bid, exp) signed by a key registered here; anything else gets 401.
            Every notification the store records (by any storefront process) is POSTed as
            {"signedPayload": …} to each --notify URL (without --notify: each URL kept with
            serve urls add), in order; a failure is retried 1, 12, 24, 48 and 72 hours after
            the previous attempt, on the store's clock. Waiting notifications are sent when
            the server starts. A kept URL gets only what is recorded after it was added; a
            --notify URL everything it has not had.
              --listen HOST:PORT   default 127.0.0.1:8089; port 0 picks a free port (printed)
              --notify URL         a receiver (repeatable)
              --allow-remote       needed to listen on a non-loopback address
              serve keys                     the registered keys
              serve keys add KEY_ID --issuer ID --public-key FILE
                                             accept tokens signed by that key (PEM public key)
              serve keys create [--issuer ID]
                                             make a key; its .p8 private key is printed once
              serve keys remove KEY_ID       stop accepting it
              serve urls                     the receiver URLs kept in the store
              serve urls add URL             keep one: it gets what is recorded from now on
              serve urls remove URL          forget it
            Ctrl-C or SIGTERM stops the server cleanly.
            """,
        options: [listen.spec, notify.spec, allowRemote.spec, SharedOptions.issuer.spec, publicKey.spec],
        operands: [.words(["keys", "urls"])])

    static let listen = Option<String>.text("--listen", value: "HOST:PORT", example: "127.0.0.1:0",
                                            "the address to listen on (default 127.0.0.1:8089; port 0 picks a free one)")
    static let notify = Option<String>.text("--notify", value: "URL", example: "http://127.0.0.1/",
                                            "a URL to POST server notifications to (repeatable)")
    static let allowRemote = Flag("--allow-remote", "listen on an address other machines can reach")
    static let publicKey = Option<String>.text("--public-key", value: "FILE", kind: .file, "keys add: the key's public half (PEM)")

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let (name, args) = (line.name, line.args)
        let (issuer, publicKey) = (try line.value(SharedOptions.issuer), try line.value(Self.publicKey))
        let (listen, notify, allowRemote) = (try line.value(Self.listen), try line.values(Self.notify), line.has(Self.allowRemote))
        let command: Self
        switch (args.first, args.count) {
        case (nil, _):
            if issuer != nil || publicKey != nil {
                throw UsageError(description: "serve takes --issuer and --public-key with keys add or keys create", command: name)
            }
            // Checked here, before the store opens: a usage error like any other (with --json, its document).
            let listen = listen ?? "127.0.0.1:8089"
            guard let address = ListenAddress(listen) else {
                throw UsageError(description: "--listen needs HOST:PORT with an IP address (127.0.0.1:8089, [::1]:8089), not \"\(listen)\"", command: name)
            }
            if let url = notify.first(where: { !Session.isReceiverURL($0) }) {
                throw UsageError(description: "--notify needs an http or https URL, not \"\(url)\"", command: name)
            }
            guard address.isLoopback || allowRemote else {
                throw UsageError(description: "\(address) can be reached from other machines; serve listens on loopback unless you add --allow-remote", command: name)
            }
            command = .serve(listen: listen, notify: notify, allowRemote: allowRemote)
        case ("keys", 1): command = .keys
        case ("keys", 3) where args[1] == "add" && !args[2].isEmpty:
            guard let issuer, let publicKey else {
                throw UsageError(description: "serve keys add KEY_ID needs --issuer ID and --public-key FILE", command: name)
            }
            command = .keysAdd(keyID: args[2], issuer: issuer, publicKeyPath: publicKey)
        case ("keys", 2) where args[1] == "create": command = .keysCreate(issuer: issuer)
        case ("keys", 3) where args[1] == "remove" && !args[2].isEmpty: command = .keysRemove(keyID: args[2])
        case ("urls", 1): command = .urls
        case ("urls", 3) where args[1] == "add" && !args[2].isEmpty: command = .urlsAdd(url: args[2])
        case ("urls", 3) where args[1] == "remove" && !args[2].isEmpty: command = .urlsRemove(url: args[2])
        default:
            throw UsageError(description: "serve takes nothing, keys [add KEY_ID | create | remove KEY_ID] or urls [add URL | remove URL]",
                             command: name)
        }
        if case .serve = command {} else if listen != nil || !notify.isEmpty || allowRemote {
            throw UsageError(description: "serve keys and serve urls take no --listen, --notify or --allow-remote", command: name)
        }
        if args.first == "urls", issuer != nil || publicKey != nil {
            throw UsageError(description: "serve urls takes no --issuer or --public-key", command: name)
        }
        return command
    }

    var needsCatalog: Bool { if case .serve = self { true } else { false } }

    func run(in session: Session) async throws -> Report? {
        switch self {
        // `serve` itself runs until stopped, with an exit code of its own (the CLI starts it).
        case .serve: nil
        case .keys: try await session.serveKeys()
        case .keysAdd(let keyID, let issuer, let path): try await session.serveKeysAdd(keyID: keyID, issuer: issuer, path: path)
        case .keysCreate(let issuer): try await session.serveKeysCreate(issuer: issuer)
        case .keysRemove(let keyID): try await session.serveKeysRemove(keyID)
        case .urls: try await session.serveURLs()
        case .urlsAdd(let url): try await session.serveURLsAdd(url)
        case .urlsRemove(let url): try await session.serveURLsRemove(url)
        }
    }
}

/// `serve`, `serve keys …` and `notifications`.
extension Session {
    /// Runs the server until SIGINT or SIGTERM.
    func serve(listen: String, notify: [String], allowRemote: Bool) async throws -> ExitCode {
        // parse checked the address and the URLs.
        guard let address = ListenAddress(listen) else { throw ServeUsage(description: "--listen needs HOST:PORT, not \"\(listen)\"") }
        let console = console
        // Every line is data (URLs, errors): control characters shown escaped, never sent to the terminal raw.
        let server = AppStoreServer(store: store, notifyURLs: notify, log: { console.err("storefront serve: \(TerminalText.sanitized($0))") })
        let port: UInt16
        do {
            port = try await server.start(listen: address)
        } catch {
            throw ServeFailure(description: "\(error)")
        }
        var shown = address
        shown.port = port
        if !address.isLoopback { console.err("storefront: note: listening on \(shown), reachable from other machines (--allow-remote)") }
        let kept = notify.isEmpty ? try await appStore.receivers().map(\.url) : []
        let targets = !notify.isEmpty ? notify.map { TerminalText.sanitized($0) }.joined(separator: ", ")
            : kept.isEmpty ? "no URL yet (--notify URL, or serve urls add URL)"
            : "the URLs kept in the store: " + kept.map { TerminalText.sanitized($0) }.joined(separator: ", ")
        let sending = server.isSending ? "notifications to \(targets)" : "not sending notifications (the line before says why)"
        console.out("storefront serve: listening on http://\(shown) (App Store Server API); \(sending)")
        let stop = await Self.waitForStop(watching: store)
        await server.stop()
        guard case .signal(let signal) = stop else {
            if case .replaced(let reason) = stop { console.err("storefront serve: stopped: \(reason)") }
            return .failure
        }
        console.err("storefront serve: stopped (\(signal == SIGINT ? "SIGINT" : "SIGTERM"))")
        return .success
    }

    /// Waits for SIGINT or SIGTERM, which no longer end the process on their own.
    static func waitForStopSignal() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let queue = DispatchQueue(label: "storefront.serve.signals")
            let once = OnceFlag()
            var sources: [DispatchSourceSignal] = []
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    guard once.take() else { return }
                    continuation.resume(returning: number)
                }
                source.resume()
                sources.append(source)
            }
            // The sources live as long as the process serves.
            SignalSources.keep(sources)
        }
    }

    func serveKeys() async throws -> Report {
        let keys = try await appStore.apiKeys()
        let json = JSON.object(["keys": .array(keys.map { .object(["keyId": .string($0.keyID), "issuerId": .string($0.issuerID)]) })])
        guard !keys.isEmpty else { return Report(json: json, "No Server API keys: add one with `storefront serve keys create` or `serve keys add`.") }
        return Report(json: json, keys.map { "\(TerminalText.sanitized($0.keyID))  issuer \(TerminalText.sanitized($0.issuerID))" })
    }

    func serveKeysAdd(keyID: String, issuer: String, path: String) async throws -> Report {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ServeUsage(description: "cannot read the public key \(path)")
        }
        guard let key = try? SigningKey(pem: pem) else {
            throw ServeUsage(description: "\(path) is not a P-256 key in PEM (-----BEGIN PUBLIC KEY----- or a .p8 private key)")
        }
        try await appStore.addAPIKey(keyID: keyID, issuerID: issuer, publicKeyPEM: key.publicKeyPEM)
        return Report(json: .object(["keyId": .string(keyID), "issuerId": .string(issuer)]),
                      "Added Server API key \(TerminalText.sanitized(keyID)) (issuer \(TerminalText.sanitized(issuer))).")
    }

    func serveKeysCreate(issuer: String?) async throws -> Report {
        let key = try SigningKey.generate()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let keyID = String((0..<10).map { _ in alphabet.randomElement()! })
        let issuer = issuer ?? UUID().uuidString.lowercased()
        try await appStore.addAPIKey(keyID: keyID, issuerID: issuer, publicKeyPEM: key.publicKeyPEM)
        let json = JSON.object(["keyId": .string(keyID), "issuerId": .string(issuer), "privateKey": .string(key.privateKeyPEM)])
        return Report(json: json, [
            "Created Server API key \(keyID) (issuer \(issuer)). Its private key, shown this once (save it as SubscriptionKey_\(keyID).p8):",
            key.privateKeyPEM.trimmingCharacters(in: .newlines),
        ])
    }

    func serveKeysRemove(_ keyID: String) async throws -> Report {
        guard try await appStore.removeAPIKey(keyID) else { throw ServeUsage(description: "no Server API key \(keyID)") }
        return Report(json: .object(["removed": .string(keyID)]), "Removed Server API key \(TerminalText.sanitized(keyID)).")
    }

    func serveURLs() async throws -> Report {
        let receivers = try await appStore.receivers()
        let json = JSON.object(["urls": .array(receivers.map {
            .object(["url": .string($0.url), "added": .string($0.added.iso8601)])
        })])
        guard !receivers.isEmpty else {
            return Report(json: json, "No receiver URLs kept: add one with `storefront serve urls add URL` (or give serve --notify URL).")
        }
        return Report(json: json, receivers.map { "\(TerminalText.sanitized($0.url))  added \($0.added.iso8601)" })
    }

    func serveURLsAdd(_ url: String) async throws -> Report {
        guard Self.isReceiverURL(url) else {
            throw ServeUsage(description: "serve urls add needs an http or https URL, not \"\(TerminalText.sanitized(url))\"")
        }
        let added = try await appStore.addReceiver(url)
        return Report(json: .object(["url": .string(url), "added": .bool(added)]), added
            ? "Added \(TerminalText.sanitized(url)): serve sends it the notifications recorded from now on (when serve has no --notify)."
            : "\(TerminalText.sanitized(url)) is kept already.")
    }

    func serveURLsRemove(_ url: String) async throws -> Report {
        guard try await appStore.removeReceiver(url) else { throw ServeUsage(description: "no receiver URL \(url)") }
        return Report(json: .object(["removed": .string(url)]), "Removed \(TerminalText.sanitized(url)).")
    }

    /// An http or https URL with a host.
    static func isReceiverURL(_ url: String) -> Bool {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else { return false }
        return true
    }

    func notifications(of type: NotificationType? = nil) async throws -> Report {
        let all = try await appStore.notifications(NotificationFilter(type: type?.rawValue))
        let json = JSON.object(["notifications": .array(all.map { notification in
            .object([
                "id": .integer(notification.id),
                "notificationUUID": .string(notification.uuid),
                "notificationType": .string(notification.type),
                "subtype": notification.subtype.map { .string($0) },
                "account": .string(notification.account),
                "transactionId": notification.transactionID.map { .integer($0) },
                "originalTransactionId": notification.originalTransactionID.map { .integer($0) },
                "signedDate": .string(notification.signedDate.iso8601),
                "delivered": .bool(notification.isDelivered),
                "sendAttempts": .array(notification.attempts.map {
                    .object(["attemptDate": .string($0.date.iso8601), "url": .string($0.url),
                             "sendAttemptResult": .string($0.result.rawValue)])
                }),
                "signedPayload": .string(notification.signedPayload),
            ])
        })])
        guard !all.isEmpty else { return Report(json: json, type.map { "No \($0.rawValue) notifications." } ?? "No server notifications yet.") }
        let lines = all.map { notification -> String in
            let name = [notification.type, notification.subtype].compactMap { $0 }.joined(separator: " ")
            let about = notification.transactionID.map { "transaction \($0)" } ?? "—"
            let state = notification.isDelivered ? "delivered"
                : notification.attempts.isEmpty ? "waiting" : "\(notification.attempts.count) failed (\(notification.attempts.last!.result.rawValue))"
            return "\(notification.id)  \(notification.signedDate.iso8601)  \(name)  \(about)  \(state)"
        }
        return Report(json: json, lines)
    }
}

/// A serve command's problem the user can fix (exit 64).
struct ServeUsage: Error, CustomStringConvertible {
    var description: String
}

/// `serve` could not start (the port in use, another app's store): exit 1, with --json its document.
struct ServeFailure: Error, CustomStringConvertible {
    var description: String
}

/// Lets one signal through.
private final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = false
    func take() -> Bool { lock.withLock { defer { taken = true }; return !taken } }
}

/// Keeps the signal sources alive.
private enum SignalSources {
    nonisolated(unsafe) static var kept: [DispatchSourceSignal] = []
    static func keep(_ sources: [DispatchSourceSignal]) { kept += sources }
}
