import StoreEngine

// MARK: - The command table's vocabulary
//
// One table drives the parser, `--help`, the shell completions and the man page:
// ``OptionSpec/all`` for the options and ``CommandHelp/all`` for the commands (each command
// type's own entry, in the order of ``StorefrontCommands/all``).
// The parser refuses any option or command that is not in it, so nothing can be
// parsed without being documented and completed.

/// What a value on the command line is, so the completions can offer candidates for it.
public enum ValueKind: Equatable, Sendable {
    /// Free text: nothing to offer (a name, a number, a JWS).
    case text
    /// One of these words.
    case words([String])
    /// A path to a file.
    case file
    /// A product id from the catalog.
    case productID
    /// A subscription group id or the id of one of its products, from the catalog.
    case group
    /// A setting's name.
    case settingName
    /// A value for the setting named by the operand before it.
    case settingValue
    /// A command's name.
    case command
}

/// One option the parser knows.
public struct OptionSpec: Equatable, Sendable {
    /// The long name, with its dashes: `--catalog`.
    public var long: String
    /// The short name, with its dash: `-c`.
    public var short: String?
    /// The value's placeholder (`PATH`), or nil for a flag.
    public var value: String?
    /// What the value is, for completion.
    public var kind: ValueKind
    /// One line for `--help`, the man page and the completions.
    public var summary: String
    /// Whether every command takes it; otherwise only the commands whose table entry lists it.
    public var global: Bool

    init(_ long: String, short: String? = nil, value: String? = nil, kind: ValueKind = .text,
         global: Bool = false, _ summary: String) {
        self.long = long
        self.short = short
        self.value = value
        self.kind = kind
        self.summary = summary
        self.global = global
    }

    /// Both spellings, short first: `-c, --catalog`.
    public var names: [String] { (short.map { [$0] } ?? []) + [long] }

    /// The option spelled `name` (long or short).
    public static func named(_ name: String) -> OptionSpec? {
        all.first { $0.long == name || $0.short == name }
    }

    /// Every option, global ones first, in the order `--help` lists them.
    public static let all: [OptionSpec] = [
        OptionSpec("--catalog", short: "-c", value: "PATH", kind: .file, global: true,
                   "the product catalog, a products.json or .storekit file (default ./products.json, else the one .storekit here)"),
        OptionSpec("--store", short: "-s", value: "PATH", kind: .file, global: true,
                   "the store file (default $STOREFRONT_STORE, else the state folder's store.sqlite)"),
        OptionSpec("--account", short: "-a", value: "NAME", global: true,
                   "the sandbox account (default: the one `accounts switch` chose); created on first use"),
        OptionSpec("--json", global: true, "print one JSON document instead of a table"),
        OptionSpec("--latency", value: "MS", global: true, "the paywall's simulated purchase latency (default 400)"),
        OptionSpec("--record", value: "FILE", kind: .file, global: true,
                   "the paywall writes the tester's actions to FILE as a scenario (replay FILE)"),
        OptionSpec("--help", short: "-h", global: true, "this help; `storefront COMMAND --help` for one command"),
        OptionSpec("--version", global: true, "the version and the commit it was built from"),
        OptionSpec("--quantity", short: "-q", value: "N", "how many of a consumable (1 to 10)"),
        OptionSpec("--outcome", value: "OUTCOME", kind: .words(PurchaseChoice.names),
                   "how this purchase ends instead of the settings: succeed, cancel, askToBuy, interrupt or an error"),
        OptionSpec("--outside", "a purchase made outside the app, reaching it as an update"),
        OptionSpec("--offer", value: "OFFER_ID", "redeem a promotional offer of the subscription"),
        OptionSpec("--signature", value: "SIGNATURE",
                   "buy --offer: the offer's signature, a compact JWS or KEY_ID:NONCE:TIMESTAMP:BASE64 (offer sign prints it)"),
        OptionSpec("--sign", "buy --offer: sign the offer now as the app's server would, with a key the store holds"),
        OptionSpec("--win-back", value: "OFFER_ID", "redeem a win-back offer of the subscription (for lapsed subscribers)"),
        OptionSpec("--consent-required", "price-increase: subscribers must agree to the new price, or their subscription ends"),
        OptionSpec("--key", value: "KEY_ID", "offer sign: the offer key to sign with (offer-keys)"),
        OptionSpec("--legacy", "offer sign: the legacy form (key id, nonce, timestamp, signature) instead of a compact JWS"),
        OptionSpec("--app-account-token", value: "UUID", "the app's token for the purchase (appAccountToken)"),
        OptionSpec("--billing-plan", value: "PLAN", kind: .words(BillingPlanType.allCases.map(\.argument)),
                   "buy: monthly (a one-year subscription's monthly plan, 12-month commitment) or upfront"),
        OptionSpec("--reason", value: "REASON", kind: .words(Transaction.RevocationReason.allNames),
                   "why the refund: developerIssue or other (default other)"),
        OptionSpec("--prorated", value: "PERCENT", kind: .words(["remaining"]),
                   "refund: give back a share (33.333, up to three decimals) or remaining (a subscription's period left); default the whole"),
        OptionSpec("--request-reason", value: "REASON", kind: .words(RefundRequestReason.allCases.map(\.rawValue)),
                   "refund-request begin: why the customer asks (the refund sheet's reasons; default other)"),
        OptionSpec("--once", "an error setting applies to the next call only"),
        OptionSpec("--limit", short: "-n", value: "N", "log: how many entries (default 50); transactions: at most N, newest first"),
        OptionSpec("--since", value: "DATE", "transactions: only those purchased at or after DATE (ISO-8601: 2026-01-31 or 2026-01-31T09:30:00Z)"),
        OptionSpec("--after", value: "TOKEN", "transactions: the next page, after the one that printed TOKEN (More: …)"),
        OptionSpec("--root", "key export: the root certificate of the store's chain instead of the key"),
        OptionSpec("--der", "key export --root: the certificate's DER bytes instead of PEM"),
        OptionSpec("--receipt", "key export: the app receipts' RSA key (or, with --root, their root) instead of the JWS key"),
        OptionSpec("--junit", value: "FILE", kind: .file, "replay: also write JUnit XML to FILE"),
        OptionSpec("--keep", "replay: leave a failed scenario's store file for inspection"),
        OptionSpec("--pending", "transactions: the requests waiting (Ask to Buy, interrupted) instead"),
        OptionSpec("--listen", value: "HOST:PORT", "serve: the address to listen on (default 127.0.0.1:8089; port 0 picks a free one)"),
        OptionSpec("--notify", value: "URL", "serve: a URL to POST server notifications to (repeatable)"),
        OptionSpec("--allow-remote", "serve: listen on an address other machines can reach"),
        OptionSpec("--issuer", value: "ID", "serve keys add/create, offer-keys add/create: the key's issuer id"),
        OptionSpec("--public-key", value: "FILE", kind: .file, "serve keys add: the key's public half (PEM)"),
    ]
}

extension PurchaseChoice {
    /// Every name `--outcome` takes, in the order the completions offer them.
    static var names: [String] {
        ["succeed", "cancel", "askToBuy", "interrupt"]
            + SimulatedError.cases(in: [.storeKitError, .purchaseError]).map(\.rawValue)
    }
}

extension Transaction.RevocationReason {
    /// The names `--reason` takes.
    static var allNames: [String] { allCases.map(\.rawValue) }
}

extension CommandHelp {
    /// The commands people see: every entry but the hidden helpers the completion scripts call.
    static var visible: [CommandHelp] { all.filter { !$0.hidden } }

    /// The options this command takes: the global ones, then its own.
    var allOptions: [OptionSpec] {
        OptionSpec.all.filter { $0.global || options.contains($0.long) }
    }
}

extension OptionSpec {
    /// Its names and value as `--help` shows them: `-c, --catalog PATH`.
    var synopsis: String {
        (short.map { "\($0), " } ?? "    ") + long + (value.map { " \($0)" } ?? "")
    }

    /// One line of `--help`'s option list.
    var helpLine: String {
        // Padded to the widest option, so no synopsis is cut and the summaries line up.
        let width = OptionSpec.all.map(\.synopsis.count).max() ?? 0
        return "  " + synopsis.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + summary
    }
}
