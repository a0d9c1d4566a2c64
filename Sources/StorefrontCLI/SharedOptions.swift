import Foundation
import StoreEngine

/// The options more than one command takes, declared once (`--help` lists the commands after each).
/// An option only one command takes is declared in that command's file.
enum SharedOptions {
    /// `buy`, `consume`.
    static let quantity = Option<Int>.number("--quantity", short: "-q", minimum: 1, "how many of a consumable (1 to 10)")

    /// `transactions`, `log`.
    static let limit = Option<Int>.number("--limit", short: "-n", minimum: 1,
                                          "at most N, the newest (log: default 50)")

    /// `refund`, `refund-request approve`.
    static let reason = Option<Transaction.RevocationReason>.choice(
        "--reason", value: "REASON", Transaction.RevocationReason.allCases, name: { $0.rawValue },
        "why the refund: developerIssue or other (default other)")

    /// `buy`, `offer sign`.
    static let appAccountToken = Option<UUID>(
        spec: OptionSpec("--app-account-token", value: "UUID", example: "6F1A2B3C-4D5E-4F60-8A7B-9C0D1E2F3A4B",
                         "the app's token for the purchase (appAccountToken)"),
        refusal: { "--app-account-token needs a UUID (8-4-4-4-12 hex digits), not \"\($0)\"" },
        read: { UUID(uuidString: $0) })

    /// `serve keys add/create`, `offer-keys add/create`.
    static let issuer = Option<String>.text("--issuer", value: "ID", "the key's issuer id")
}
