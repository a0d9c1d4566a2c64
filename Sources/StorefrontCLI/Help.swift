import StoreEngine

/// Help for one subcommand: its usage line, a summary for the command list,
/// and the details `storefront COMMAND --help` prints.
struct CommandHelp {
    var name: String
    var usage: String
    var summary: String
    var details: String

    static let all: [CommandHelp] = [
        CommandHelp(
            name: "products", usage: "products [--json]",
            summary: "List the catalog's products for the current storefront",
            details: """
                Lists every product in display order (subscription groups by level, then
                non-consumables, consumables, non-renewing subscriptions) with its localized
                price and what the account has of it: Owned, Active until DATE, Balance N.
                """),
        CommandHelp(
            name: "buy", usage: "buy PRODUCT_ID [--quantity N] [--json]",
            summary: "Purchase a product and deliver it, as Product.purchase()",
            details: """
                Buys the product for the account and, as the app would, delivers the content
                and finishes the transaction. Success is reported only after the purchase is
                durably written to the store file.
                  --quantity N   how many of a consumable (1 to 10); other types take 1
                A non-consumable the account owns is not charged again: it is restored for free.
                Fails with paymentNotAllowed when canMakePayments is false for the account.
                --json prints {"result": "success" | "userCancelled" | "pending", "transaction": {…}}.
                """),
        CommandHelp(
            name: "restore", usage: "restore [--json]",
            summary: "Restore purchases, as AppStore.sync()",
            details: """
                Brings back every non-consumable and active subscription of the account to the
                app (after `reset app`, as after reinstalling). Consumables are never restored.
                Adds no transaction; each restored product is logged in the restored state.
                """),
        CommandHelp(
            name: "transactions", usage: "transactions [--json]",
            summary: "The account's transaction history, newest first",
            details: """
                Every transaction of the account (Transaction.all), newest first, with its
                status: purchased, or pending while it waits for approval.
                """),
        CommandHelp(
            name: "entitlements", usage: "entitlements [--json]",
            summary: "What the account owns now, as Transaction.currentEntitlements",
            details: """
                The newest active transaction of each non-consumable and subscription the
                account owns, as the App Store knows it (whether or not the app has it now).
                """),
        CommandHelp(
            name: "consume", usage: "consume PRODUCT_ID [--quantity N] [--json]",
            summary: "Use up a consumable from the app's balance",
            details: """
                Takes N (default 1) from the app-side balance of a consumable. Fails when the
                balance is smaller than N.
                """),
        CommandHelp(
            name: "reset", usage: "reset app | account | all [--json]",
            summary: "Wipe the app's state, the account's history, or everything",
            details: """
                  app       as deleting the app: its owned-products cache and consumable balances
                            (for every account); the App Store's history stays, so restore works
                  account   the account's transactions, settings, log and app-side state
                  all       the whole store file's contents (transaction ids are never reused)
                """),
        CommandHelp(
            name: "settings", usage: "settings [set NAME VALUE] [--json]",
            summary: "Show or change the simulated conditions",
            details: """
                Without operands, lists every setting and its value. `settings set NAME VALUE`
                changes one; settings are kept in the store file.
                \(SettingDefinition.all.map { "  \($0.name.padding(toLength: 17, withPad: " ", startingAt: 0)) \($0.scope == .account ? "per account" : "whole store"): \($0.summary)" }.joined(separator: "\n"))
                """),
        CommandHelp(
            name: "log", usage: "log [--limit N] [--json]",
            summary: "The account's transaction state changes (StoreKit 1 states)",
            details: """
                The newest N (default 50) state changes of the account's transactions, oldest
                first: purchasing, purchased, failed, restored, deferred.
                """),
        CommandHelp(
            name: "key", usage: "key export",
            summary: "Print the public key that verifies the store's signed transactions",
            details: """
                Prints the store file's ECDSA P-256 public key as PEM (-----BEGIN PUBLIC KEY-----).
                Give it to a server or a test to verify each transaction's jwsRepresentation, e.g.
                with `openssl dgst -sha256 -verify key.pem` over the JWS's first two parts.
                """),
        CatalogCommands.help,
        DoctorCommand.help,
        CommandHelp(
            name: "verify", usage: "verify JWS [--json]",
            summary: "Decode and verify one signed transaction (JWS)",
            details: """
                Checks a compact JWS (ES256) against the store's key and prints its header and
                payload. Exits with 1 when it does not verify: an edited byte, another key, or
                an algorithm other than ES256 (alg none is always refused).
                """),
    ]

    static func named(_ name: String) -> CommandHelp? {
        all.first { $0.name == name }
    }

    /// `storefront --help`.
    static func overview(defaultStore: String) -> String {
        let width = all.map(\.name.count).max() ?? 0
        let commands = all.map { "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.summary)" }
        return """
            storefront — a StoreKit simulator for the terminal

            Usage:
              storefront [OPTIONS]                 open the paywall (needs a terminal)
              storefront [OPTIONS] COMMAND [--json]

            Commands:
            \(commands.joined(separator: "\n"))

            Options:
              -c, --catalog PATH   the product catalog (default ./products.json)
              -s, --store PATH     the store file (default $STOREFRONT_STORE, else
                                   \(defaultStore))
              -a, --account NAME   the sandbox account (default \(Store.defaultAccount)); created on first use
                  --json           print one JSON document instead of a table
                  --latency MS     the paywall's simulated purchase latency (default 400)
              -h, --help           this help; `storefront COMMAND --help` for one command
                  --version        the version

            Exit codes: 0 done, 1 the operation failed, 2 no terminal for the paywall,
            64 usage, 65 bad catalog, 66 catalog missing, 74 store file unusable
            (doctor: 1 problems found, 74 cannot be read).
            """
    }

    /// `storefront COMMAND --help`.
    var text: String {
        "Usage: storefront [OPTIONS] \(usage)\n\n\(summary).\n\n\(details)\n"
    }
}
