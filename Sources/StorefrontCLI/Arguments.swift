import Foundation
import StoreEngine

extension Invocation {
    /// Parses the arguments after the program name. Options may come before or
    /// after the subcommand, as `--name value` or `--name=value`.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var invocation = Invocation(command: .paywall)
        var operands: [String] = []
        var quantity: Int?
        var limit: Int?
        var wantsHelp = false
        var once = false
        var outside = false
        var outcome: PurchaseChoice?
        var reason: Transaction.RevocationReason?
        var requestReason: RefundRequestReason?
        var offerID: String?
        var given: Set<String> = []
        var appAccountToken: UUID?
        var root = false
        var der = false
        var junit: String?
        var keep = false
        var listen: String?
        var notify: [String] = []
        var allowRemote = false
        var issuer: String?
        var publicKey: String?
        var pending = false
        var since: Date?
        var after: Int64??
        var offer = OfferArguments()
        var pricing = PricingArguments()
        var rest = arguments[...]

        func value(for option: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard let next = rest.popFirst() else {
                throw UsageError(description: "\(option) needs a value", command: operands.first)
            }
            return next
        }
        func number(_ text: String, for option: String, minimum: Int) throws(UsageError) -> Int {
            guard let number = Int(text), number >= minimum else {
                throw UsageError(description: "\(option) needs a whole number of at least \(minimum), not \"\(text)\"",
                                 command: operands.first)
            }
            return number
        }

        while let argument = rest.popFirst() {
            if argument == "--" {
                operands.append(contentsOf: rest)
                break
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                operands.append(argument)
                continue
            }
            // `--name=` has an empty value; it must not take the next argument as its value.
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let option = parts[0]
            let inline = parts.count > 1 ? parts[1] : nil
            // Only the table's options exist: an option cannot be parsed without being documented.
            guard let spec = OptionSpec.named(option) else {
                throw UsageError(description: "unknown option \(option)", command: operands.first)
            }
            if let inline, spec.value == nil {
                throw UsageError(description: "\(option) takes no value, not \"\(inline)\"", command: operands.first)
            }
            switch spec.long {
            case "--catalog":
                let path = try value(for: option, inline: inline)
                guard !path.isEmpty else { throw UsageError(description: "--catalog needs a path", command: nil) }
                invocation.catalogPath = path
                invocation.catalogGiven = true
            case "--store":
                // An empty path would make SQLite open a temporary database that vanishes on exit.
                let path = try value(for: option, inline: inline)
                guard !path.isEmpty else { throw UsageError(description: "--store needs a path", command: nil) }
                invocation.storePath = path
            case "--account":
                let name = try value(for: option, inline: inline)
                guard !name.isEmpty else { throw UsageError(description: "--account needs a name", command: nil) }
                invocation.account = name
            case "--json": invocation.json = true
            case "--quantity":
                quantity = try number(try value(for: option, inline: inline), for: option, minimum: 1)
            case "--limit":
                limit = try number(try value(for: option, inline: inline), for: option, minimum: 1)
            case "--latency":
                invocation.latency = try number(try value(for: option, inline: inline), for: option, minimum: 0)
            case "--once": once = true
            case "--outside": outside = true
            case "--outcome":
                let name = try value(for: option, inline: inline)
                guard let chosen = PurchaseChoice(name: name) else {
                    throw UsageError(description: "--outcome takes succeed, cancel, askToBuy, interrupt or a purchase error (\(SimulatedError.cases(in: [.storeKitError, .purchaseError]).map(\.rawValue).joined(separator: ", "))), not \"\(name)\"", command: operands.first)
                }
                outcome = chosen
            case "--offer":
                let id = try value(for: option, inline: inline)
                guard !id.isEmpty else { throw UsageError(description: "--offer needs an offer id", command: operands.first) }
                offerID = id
            case "--app-account-token":
                let text = try value(for: option, inline: inline)
                guard let token = UUID(uuidString: text) else {
                    throw UsageError(description: "--app-account-token needs a UUID (8-4-4-4-12 hex digits), not \"\(text)\"", command: operands.first)
                }
                appAccountToken = token
            case "--record":
                let path = try value(for: option, inline: inline)
                guard !path.isEmpty else { throw UsageError(description: "--record needs a file", command: nil) }
                invocation.recordPath = path
            case "--junit":
                let path = try value(for: option, inline: inline)
                guard !path.isEmpty else { throw UsageError(description: "--junit needs a file", command: operands.first) }
                junit = path
            case "--win-back", "--consent-required":
                try pricing.take(option, value: spec.value == nil ? nil : value(for: option, inline: inline), command: operands.first)
            case "--signature", "--key", "--sign", "--legacy":
                try offer.take(option, value: spec.value == nil ? nil : value(for: option, inline: inline), command: operands.first)
            case "--keep": keep = true
            case "--root": root = true
            case "--pending": pending = true
            case "--since":
                let text = try value(for: option, inline: inline)
                guard let date = Self.date(text) else {
                    throw UsageError(description: "--since needs an ISO-8601 date or date and time (2026-01-31, 2026-01-31T09:30:00Z), not \"\(text)\"", command: operands.first)
                }
                since = date
            case "--after":
                let text = try value(for: option, inline: inline)
                guard let id = HistoryRevision.id(text) else {
                    throw UsageError(description: "--after needs the token a page of transactions ended with (More: …), not \"\(text)\"", command: operands.first)
                }
                after = id
            case "--der": der = true
            case "--listen": listen = try value(for: option, inline: inline)
            case "--notify": notify.append(try value(for: option, inline: inline))
            case "--allow-remote": allowRemote = true
            case "--issuer": issuer = try value(for: option, inline: inline)
            case "--public-key": publicKey = try value(for: option, inline: inline)
            case "--reason":
                let name = try value(for: option, inline: inline)
                guard let chosen = Transaction.RevocationReason(rawValue: name) else {
                    throw UsageError(description: "--reason takes developerIssue or other, not \"\(name)\"", command: operands.first)
                }
                reason = chosen
            case "--request-reason":
                let name = try value(for: option, inline: inline)
                guard let chosen = RefundRequestReason(rawValue: name) else {
                    throw UsageError(description: "--request-reason takes \(RefundRequestReason.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"", command: operands.first)
                }
                requestReason = chosen
            case "--help": wantsHelp = true
            case "--version": invocation.command = .version; return invocation
            default:
                throw UsageError(description: "unknown option \(option)", command: operands.first)
            }
            given.insert(spec.long)
        }

        guard let name = operands.first else {
            invocation.command = wantsHelp ? .help(nil) : .paywall
            return invocation
        }
        let args = Array(operands.dropFirst())
        if wantsHelp || name == "help" {
            let topic = name == "help" ? args.first : name
            if let topic, CommandHelp.named(topic) == nil {
                throw UsageError(description: "no command \"\(topic)\"", command: nil)
            }
            invocation.command = .help(topic)
            return invocation
        }

        func expect(_ count: Int, _ what: String) throws(UsageError) {
            guard args.count == count else {
                let problem = args.count < count ? "needs \(what)" : "takes \(count == 0 ? "no operands" : what), not \"\(args.joined(separator: " "))\""
                throw UsageError(description: "\(name) \(problem)", command: name)
            }
        }
        // The table says which options each command takes (settings takes --once with set only).
        guard let entry = CommandHelp.named(name) else {
            throw UsageError(description: "no command \"\(name)\"", command: nil)
        }
        func allow() throws(UsageError) {
            let allowed = entry.options.filter { option in
                switch option {
                case "--once": args.count == 3           // settings set NAME VALUE --once
                case "--app-account-token": !outside     // the app's token: not a purchase outside it
                case "--der": root                       // key export --root --der
                case "--reason": name != "refund-request" || args.first == "approve"
                case "--request-reason": args.first == "begin"  // refund-request begin ID
                default: true
                }
            }
            if let option = OptionSpec.all.first(where: { !$0.global && given.contains($0.long) && !allowed.contains($0.long) }) {
                throw UsageError(description: "\(name) takes no \(option.long)", command: name)
            }
        }
        func transactionID() throws(UsageError) -> Int64 {
            try expect(1, "a TRANSACTION_ID")
            guard let id = Int64(args[0]), id > 0 else {
                throw UsageError(description: "\(name) needs a transaction id (a whole number), not \"\(args[0])\"", command: name)
            }
            return id
        }

        switch name {
        case "products", "restore", "transactions", "entitlements":
            try expect(0, "")
            try allow()
            if pending, limit != nil || since != nil || after != nil {
                throw UsageError(description: "transactions --pending takes no --limit, --since or --after", command: name)
            }
            invocation.command = [
                "products": .products, "restore": .restore,
                "transactions": .transactions(pending: pending, limit: limit, since: since, after: after ?? nil),
                "entitlements": .entitlements,
            ][name]!
        case "buy":
            try expect(1, "a PRODUCT_ID")
            try allow()
            if outside, outcome != nil || offerID != nil || pricing.winBackOfferID != nil {
                throw UsageError(description: "buy takes --outside or --outcome/--offer/--win-back, not both", command: name)
            }
            if offerID != nil, pricing.winBackOfferID != nil {
                throw UsageError(description: "buy takes --offer or --win-back, not both", command: name)
            }
            invocation.command = outside
                ? .buyOutside(productID: args[0], quantity: quantity ?? 1)
                : .buy(productID: args[0], quantity: quantity ?? 1, outcome: outcome, offerID: offerID,
                       appAccountToken: appAccountToken, offerSigning: try offer.signing(offerID: offerID),
                       winBackOfferID: pricing.winBackOfferID)
        case "clock":
            try allow()
            switch args.count {
            case 0: invocation.command = .clock
            case 2 where args[0] == "advance":
                guard let duration = ISODuration(args[1]), duration != ISODuration() else {
                    throw UsageError(description: "clock advance needs an ISO-8601 duration such as P1M, P3D or PT6H, not \"\(args[1])\"", command: name)
                }
                invocation.command = .advanceClock(duration)
            default:
                throw UsageError(description: "clock takes nothing, or advance DURATION", command: name)
            }
        case "status":
            try allow()
            guard args.count <= 1 else { throw UsageError(description: "status takes at most a GROUP_ID", command: name) }
            invocation.command = .status(groupID: args.first)
        case "auto-renew":
            try allow()
            guard args.count == 2, ["on", "off"].contains(args[1]) else {
                throw UsageError(description: "auto-renew takes a GROUP (or a subscription's product id) and on or off", command: name)
            }
            invocation.command = .autoRenew(group: args[0], on: args[1] == "on")
        case "expire", "renew":
            try expect(1, "a GROUP (or a subscription's product id)")
            try allow()
            invocation.command = name == "expire" ? .expire(group: args[0]) : .renew(group: args[0])
        case "consume":
            try expect(1, "a PRODUCT_ID")
            try allow()
            invocation.command = .consume(productID: args[0], quantity: quantity ?? 1)
        case "approve", "decline", "resolve", "delete-transaction":
            try allow()
            let id = try transactionID()
            invocation.command = [
                "approve": .approve(transactionID: id), "decline": .decline(transactionID: id),
                "resolve": .resolve(transactionID: id), "delete-transaction": .deleteTransaction(transactionID: id),
            ][name]!
        case "refund":
            try allow()
            invocation.command = .refund(transactionID: try transactionID(), reason: reason ?? .other)
        case "accounts":
            try allow()
            switch (args.first, args.count) {
            case (nil, _): invocation.command = .accounts
            case ("create", 2) where !args[1].isEmpty: invocation.command = .createAccount(name: args[1])
            case ("switch", 2) where !args[1].isEmpty: invocation.command = .switchAccount(name: args[1])
            case ("family", _): invocation.command = try FamilyCommands.command(Array(args.dropFirst()))
            default:
                throw UsageError(description: "accounts takes nothing, create NAME, switch NAME or family …", command: name)
            }
        case "reset":
            try expect(1, "what to reset: app, account or all")
            try allow()
            guard let scope = ResetScope(rawValue: args[0]) else {
                throw UsageError(description: "reset takes app, account or all, not \"\(args[0])\"", command: name)
            }
            invocation.command = .reset(scope)
        case "settings":
            try allow()
            switch args.count {
            case 0: invocation.command = .settings
            case 3 where args[0] == "set": invocation.command = .setSetting(name: args[1], value: args[2], once: once)
            default:
                throw UsageError(description: "settings takes nothing, or set NAME VALUE", command: name)
            }
        case "log":
            try expect(0, "")
            try allow()
            invocation.command = .log(limit: limit ?? 50)
        case "key":
            try allow()
            guard args == ["export"] else { throw UsageError(description: "key takes export", command: name) }
            invocation.command = root ? .exportRoot(der: der) : .exportKey
        case "catalog":
            try allow()
            guard args.count == 2, ["check", "convert"].contains(args[0]), !args[1].isEmpty else {
                throw UsageError(description: "catalog takes check FILE or convert FILE", command: name)
            }
            invocation.command = args[0] == "check" ? .catalogCheck(path: args[1]) : .catalogConvert(path: args[1])
        case "serve":
            try allow()
            switch (args.first, args.count) {
            case (nil, _):
                if issuer != nil || publicKey != nil {
                    throw UsageError(description: "serve takes --issuer and --public-key with keys add or keys create", command: name)
                }
                invocation.command = .serve(listen: listen ?? "127.0.0.1:8089", notify: notify, allowRemote: allowRemote)
            case ("keys", 1): invocation.command = .serveKeys
            case ("keys", 3) where args[1] == "add" && !args[2].isEmpty:
                guard let issuer, let publicKey else {
                    throw UsageError(description: "serve keys add KEY_ID needs --issuer ID and --public-key FILE", command: name)
                }
                invocation.command = .serveKeysAdd(keyID: args[2], issuer: issuer, publicKeyPath: publicKey)
            case ("keys", 2) where args[1] == "create": invocation.command = .serveKeysCreate(issuer: issuer)
            case ("keys", 3) where args[1] == "remove" && !args[2].isEmpty: invocation.command = .serveKeysRemove(keyID: args[2])
            case ("urls", 1): invocation.command = .serveURLs
            case ("urls", 3) where args[1] == "add" && !args[2].isEmpty: invocation.command = .serveURLsAdd(url: args[2])
            case ("urls", 3) where args[1] == "remove" && !args[2].isEmpty: invocation.command = .serveURLsRemove(url: args[2])
            default:
                throw UsageError(description: "serve takes nothing, keys [add KEY_ID | create | remove KEY_ID] or urls [add URL | remove URL]",
                                 command: name)
            }
            if case .serve = invocation.command {} else if listen != nil || !notify.isEmpty || allowRemote {
                throw UsageError(description: "serve keys and serve urls take no --listen, --notify or --allow-remote", command: name)
            }
            if args.first == "urls", issuer != nil || publicKey != nil {
                throw UsageError(description: "serve urls takes no --issuer or --public-key", command: name)
            }
        case "offer-keys", "offer":
            try allow()
            invocation.command = try offer.command(name, args, issuer: issuer, appAccountToken: appAccountToken)
        case "refund-request":
            try allow()
            invocation.command = try RefundRequestCommands.command(args, reason: reason, requestReason: requestReason)
        case "price-increase", "messages", "message":
            try allow()
            invocation.command = try pricing.command(name, args)
        case "redeem":
            try expect(1, "a CODE")
            try allow()
            invocation.command = .redeem(code: args[0])
        case "app-transaction":
            try expect(0, "")
            try allow()
            invocation.command = .appTransaction
        case "notifications":
            try expect(0, "")
            try allow()
            invocation.command = .notifications
        case "doctor":
            try expect(0, "")
            try allow()
            invocation.command = .doctor
        case "verify":
            try expect(1, "a JWS string")
            try allow()
            invocation.command = .verify(jws: args[0])
        case "completions":
            try expect(1, "a shell: bash, zsh or fish")
            try allow()
            guard let shell = Shell(rawValue: args[0]) else {
                throw UsageError(description: "completions takes bash, zsh or fish, not \"\(args[0])\"", command: name)
            }
            invocation.command = .completions(shell)
        case "man":
            try expect(0, "")
            try allow()
            invocation.command = .manPage
        case "replay":
            try allow()
            guard !args.isEmpty else { throw UsageError(description: "replay needs at least one scenario FILE", command: name) }
            invocation.command = .replay(paths: args, junit: junit, keep: keep)
        case "__complete":
            try allow()
            guard let request = CompletionRequest(args) else {
                throw UsageError(description: "__complete takes products, groups or setting-values NAME", command: name)
            }
            invocation.command = .complete(request)
        default:
            throw UsageError(description: "no command \"\(name)\"", command: nil)
        }
        return invocation
    }

    /// An ISO-8601 date (midnight UTC) or date and time, as `--since` takes it.
    static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day())
    }
}
