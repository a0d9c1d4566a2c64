import StoreEngine

/// Help for one subcommand: its usage line, a summary for the command list,
/// and the details `storefront COMMAND --help` prints.
///
/// The entries are the command table: the parser accepts only the commands listed
/// here, with the options each lists, and the completions and man page are made from it.
struct CommandHelp {
    var name: String
    var usage: String
    var summary: String
    var details: String
    /// The long names of the options this command takes besides the global ones.
    var options: [String] = []
    /// What each operand is, by position, for the completions.
    var operands: [ValueKind] = []
    /// A helper for the completion scripts: parsed, but not listed in help, completions or the man page.
    var hidden = false

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
            name: "buy", usage: "buy PRODUCT_ID [--quantity N] [--offer OFFER_ID (--signature SIGNATURE | --sign) | --win-back OFFER_ID] [--app-account-token UUID] [--outcome OUTCOME | --outside] [--json]",
            summary: "Purchase a product and deliver it, as Product.purchase()",
            details: """
                Buys the product for the account and, as the app would, delivers the content
                and finishes the transaction. Success is reported only after the purchase is
                durably written to the store file.
                  --quantity N        how many of a consumable (1 to 10); other types take 1
                  --outcome OUTCOME   how this purchase ends instead of askToBuy,
                                      interruptedPurchases and purchaseError: succeed, cancel,
                                      askToBuy, interrupt, or an error's case name (networkError,
                                      purchaseNotAllowed, …); the device's conditions
                                      (canMakePayments, offline, latency) still apply
                  --outside           a purchase made outside the app (another device): the
                                      App Store records it, the app gets it as an update
                  --offer OFFER_ID    redeem a promotional offer of the subscription (for current
                                      and lapsed subscribers of its group), with its signature, as
                                      Apple requires: --signature SIGNATURE (what offer sign prints:
                                      a compact JWS or KEY_ID:NONCE:TIMESTAMP:SIGNATURE), or --sign to
                                      sign it now with the key the store holds (offer sign --key
                                      chooses among several);
                                      none → missingOfferParameters, a bad one → invalidOfferSignature
                  --win-back OFFER_ID redeem a win-back offer of the subscription (Product.PurchaseOption
                                      .winBackOffer): for an account whose subscription of that plan
                                      lapsed, within the offer's rules (paid months, months since the
                                      lapse, wait between offers, its dates); others → ineligibleForOffer;
                                      the transaction's offerType is winBack (4 in the payload)
                  --app-account-token UUID   the app's token for the purchase
                                      (Product.PurchaseOption.appAccountToken): signed as
                                      appAccountToken in the transaction and its renewal info
                Subscriptions follow their group: an upgrade (a lower level number) takes effect at
                once, a downgrade or a crossgrade to another period at the next renewal. The first
                subscription in a group gets its introductory offer.
                A non-consumable the account owns is not charged again: it is restored for free.
                The settings apply: canMakePayments false → purchaseNotAllowed; askToBuy or
                interruptedPurchases → pending (with the id to approve or resolve); offline →
                networkError; purchaseError → that error; finishTransactions false → not finished.
                --json prints {"result": "success" | "userCancelled" | "pending", "transaction": {…},
                "alreadyOwned": …, "finished": …}.
                """,
            options: ["--quantity", "--outcome", "--outside", "--offer", "--signature", "--sign", "--win-back", "--app-account-token"],
            operands: [.productID]),
        CommandHelp(
            name: "restore", usage: "restore [--json]",
            summary: "Restore purchases, as AppStore.sync()",
            details: """
                Brings back every non-consumable and active subscription of the account to the
                app (after `reset app`, as after reinstalling). Consumables are never restored.
                Adds no transaction; each restored product is logged in the restored state.
                """),
        CommandHelp(
            name: "transactions", usage: "transactions [--limit N] [--since DATE] [--after TOKEN] [--pending] [--json]",
            summary: "The account's transaction history, newest first",
            details: """
                The account's transactions as the app sees them (Transaction.all), newest first:
                purchased ones only, and finished consumables only when the setting
                includeConsumablesInHistory is true (Apple's SKIncludeConsumableInAppPurchaseHistory).
                Notes mark refunded, upgraded, unfinished and unverified transactions.
                Written as the store file is read, so the first lines come at once and a history
                of any length takes the same memory (the text table's columns are as wide as
                its first 100 rows need).
                  --limit N       at most N; when more are left, the last line says how to get
                                  them: More: storefront transactions --after TOKEN …
                  --since DATE    only those purchased at or after DATE (2026-01-31, or
                                  2026-01-31T09:30:00Z)
                  --after TOKEN   the page after the one that ended with TOKEN, like the App Store
                                  Server API's revision
                --json adds "hasMore" and "revision" (the token of the next page).
                A pending purchase is a request, not a transaction: --pending lists the requests
                waiting for a parent (Ask to Buy: approve or decline) or the user (interrupted:
                resolve), as Xcode's Transaction Manager shows them ({"requests": [{"id", "productID",
                "reason", "date"}]} with --json).
                """,
            options: ["--pending", "--limit", "--since", "--after"]),
        CommandHelp(
            name: "approve", usage: "approve TRANSACTION_ID [--json]",
            summary: "Approve an Ask to Buy request, as the parent",
            details: """
                Completes a purchase pending Ask to Buy approval: it is charged and dated now, and
                reaches the app as an update (a running paywall shows it within a second).
                """,
            operands: [.text]),
        CommandHelp(
            name: "decline", usage: "decline TRANSACTION_ID [--json]",
            summary: "Decline an Ask to Buy request, as the parent",
            details: "Declines a purchase pending Ask to Buy approval: nothing is charged or delivered.",
            operands: [.text]),
        CommandHelp(
            name: "resolve", usage: "resolve TRANSACTION_ID [--json]",
            summary: "Complete an interrupted purchase",
            details: """
                Completes a purchase that interruptedPurchases left pending, as when the user has
                accepted the terms: it is charged now and reaches the app as an update.
                """,
            operands: [.text]),
        CommandHelp(
            name: "refund", usage: "refund TRANSACTION_ID [--reason developerIssue|other] [--json]",
            summary: "Refund a purchase: revocationDate and revocationReason are set",
            details: """
                Revokes the transaction (reason other unless given): the entitlement goes at once
                and the paywall's checkmark with it; a refunded consumable is taken from the app's
                balance (never below zero). The transaction is signed anew with its revocation.
                """,
            options: ["--reason"], operands: [.text]),
        CommandHelp(
            name: "delete-transaction", usage: "delete-transaction TRANSACTION_ID [--json]",
            summary: "Delete a transaction from the account's history",
            details: """
                Removes the transaction, as the Transaction Manager's Delete: the App Store forgets
                it, so the product can be bought again.
                """,
            operands: [.text]),
        CommandHelp(
            name: "accounts", usage: "accounts [create NAME | switch NAME | family [create NAME | add NAME ACCOUNT | remove NAME ACCOUNT]] [--json]",
            summary: "List, create or switch sandbox testers; group them in families",
            details: """
                  accounts               the store file's accounts; * marks the one in use
                  accounts create NAME   a new tester with an empty history (the way to test a
                                         first purchase of a non-consumable again)
                  accounts switch NAME   use NAME when --account is not given (created if new)
                Settings marked "per account" (canMakePayments, askToBuy) belong to each tester.
                \(FamilyCommands.details)
                """,
            operands: [.words(["create", "switch", "family"]), .text, .text, .text]),
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
                """,
            options: ["--quantity"], operands: [.productID]),
        CommandHelp(
            name: "reset", usage: "reset app | account | all [--json]",
            summary: "Wipe the app's state, the account's history, or everything",
            details: """
                  app       as deleting the app: its owned-products cache and consumable balances
                            (for every account); the App Store's history stays, so restore works
                  account   the account's transactions, settings, log and app-side state
                  all       the whole store file's contents (transaction ids are never reused)
                """,
            operands: [.words(["app", "account", "all"])]),
        CommandHelp(
            name: "settings", usage: "settings [set NAME VALUE [--once]] [--json]",
            summary: "Show or change the simulated conditions",
            details: """
                Without operands, lists every setting and its value. `settings set NAME VALUE`
                changes one; settings are kept in the store file. With --once an error setting
                applies to the next call only, then returns to none.
                \(SettingDefinition.all.map { "  \($0.name.padding(toLength: settingNameWidth, withPad: " ", startingAt: 0)) \($0.scope == .account ? "per account" : "whole store"): \($0.summary)" }.joined(separator: "\n"))
                """,
            options: ["--once"], operands: [.words(["set"]), .settingName, .settingValue]),
        CommandHelp(
            name: "clock", usage: "clock [advance DURATION] [--json]",
            summary: "Show the store's clock, or jump it ahead (renewals follow)",
            details: """
                The store has its own time: real time scaled by the timeRate setting (Xcode's
                names: realTime, monthlyRenewalEveryHour … monthlyRenewalEveryThirtySeconds,
                oneRenewalEveryFifteenMinutes … oneRenewalEveryTwoSeconds), plus every jump.
                  clock                    the store time and rate
                  clock advance DURATION   jump ahead by an ISO-8601 duration (P1M, P3D, PT6H);
                                           the renewals, billing retries and expiries due by then
                                           are made in order, as when a device was off
                """,
            operands: [.words(["advance"]), .words(["P1D", "P1W", "P1M", "P1Y", "PT1H"])]),
        CommandHelp(
            name: "status", usage: "status [GROUP_ID] [--json]",
            summary: "Each subscription group's renewal state and renewal info",
            details: """
                Per subscription group the account has subscribed to: the RenewalState (subscribed,
                expired, inBillingRetryPeriod, inGracePeriod, revoked), the current product, whether
                it will auto-renew and to what (autoRenewPreference: a downgrade waits here), the
                renewal date, the expirationReason and the grace period's end. --json adds the
                signed renewal info (JWSRenewalInfoDecodedPayload names).
                """,
            operands: [.group]),
        CommandHelp(
            name: "auto-renew", usage: "auto-renew GROUP on|off [--json]",
            summary: "Turn a subscription's auto-renew on or off (willAutoRenew)",
            details: """
                Off, the subscription stays active to the end of its period and then expires with
                expirationReason autoRenewDisabled. GROUP is a subscription group id or the id of one
                of its products.
                """,
            operands: [.group, .words(["on", "off"])]),
        CommandHelp(
            name: "expire", usage: "expire GROUP [--json]",
            summary: "End a subscription now",
            details: "Cuts the current period short now; the subscription does not renew (autoRenewDisabled).",
            operands: [.group]),
        CommandHelp(
            name: "renew", usage: "renew GROUP [--json]",
            summary: "Renew a subscription now",
            details: """
                Ends the current period now and adds the renewal transaction at once (new id, same
                originalID, reason renew), without waiting for the clock.
                """,
            operands: [.group]),
        CommandHelp(
            name: "log", usage: "log [--limit N] [--json]",
            summary: "The account's transaction state changes (StoreKit 1 states)",
            details: """
                The newest N (default 50) state changes of the account's transactions, in the
                order they happened by the store's clock: purchasing, purchased, failed, restored,
                deferred; revoked for a refund and expired for a subscription's end (StoreKit 1
                has no state for either). Failures carry the error's name and SKError code.
                """,
            options: ["--limit"]),
        CommandHelp(
            name: "key", usage: "key export [--root [--der]]",
            summary: "Print the public key, or the root certificate, that verifies the store's signed data",
            details: """
                Prints the store file's ECDSA P-256 public key as PEM (-----BEGIN PUBLIC KEY-----),
                e.g. for `openssl dgst -sha256 -verify key.pem` over a JWS's first two parts.
                  --root   the root certificate of the store's own certificate authority (PEM):
                           every JWS carries the chain leaf, intermediate, root in its x5c
                           header, as Apple's do. Give it to a server in place of Apple's root
                           (the App Store Server Library's SignedDataVerifier takes DER roots)
                           with the environment setting Sandbox or Production.
                  --der    with --root: the certificate's DER bytes instead of PEM
                """,
            options: ["--root", "--der"], operands: [.words(["export"])]),
        OfferCommands.appTransactionHelp,
        OfferCommands.offerKeysHelp,
        OfferCommands.offerHelp,
        OfferCommands.redeemHelp,
        RefundRequestCommands.help,
        PricingCommands.priceIncreaseHelp,
        PricingCommands.messagesHelp,
        PricingCommands.messageHelp,
        CatalogCommands.help,
        DoctorCommand.help,
        CommandHelp(
            name: "verify", usage: "verify JWS [--json]",
            summary: "Decode and verify one signed transaction (JWS)",
            details: """
                Checks a compact JWS (ES256) as a server does and prints its header and payload:
                its x5c certificate chain must lead to this store's root, valid at the payload's
                signedDate, with Apple's marker extensions; the leaf's key must have signed it.
                Exits with 1 when it does not verify: an edited byte, another key or chain, no
                x5c, or an algorithm other than ES256 (alg none is always refused).
                """,
            operands: [.text]),
        ReplayCommand.help,
        ToolCommands.completionsHelp,
        ToolCommands.manHelp,
        CommandHelp(
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
            options: ["--listen", "--notify", "--allow-remote", "--issuer", "--public-key"], operands: [.words(["keys", "urls"])]),
        CommandHelp(
            name: "notifications", usage: "notifications [--json]",
            summary: "The App Store Server Notifications the store recorded, with their delivery",
            details: """
                Every notification the store made (SUBSCRIBED, DID_RENEW, REFUND, …), oldest first,
                with its subtype, transaction and each delivery attempt (store time, URL and Apple's
                sendAttemptResult). --json adds the signedPayload.
                """),
        CommandHelp(
            name: "help", usage: "help [COMMAND]",
            summary: "The commands and options, or one command's details",
            details: "The same as `storefront --help`, or `storefront COMMAND --help` when a COMMAND is named.",
            operands: [.command]),
        ToolCommands.completeHelp,
    ]

    /// The settings column of `settings --help`: the longest name and a space, so no name is cut.
    private static let settingNameWidth = SettingDefinition.all.map(\.name.count).max()! + 1

    static func named(_ name: String) -> CommandHelp? {
        all.first { $0.name == name }
    }

    /// `storefront --help`.
    static func overview(defaultStore: String) -> String {
        let width = visible.map(\.name.count).max() ?? 0
        let commands = visible.map { "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.summary)" }
        let global = OptionSpec.all.filter(\.global).map(\.helpLine)
        let own = OptionSpec.all.filter { !$0.global }.map { option in
            option.helpLine + " (" + visible.filter { $0.options.contains(option.long) }.map(\.name).joined(separator: ", ") + ")"
        }
        return """
            storefront — a StoreKit simulator for the terminal

            Usage:
              storefront [OPTIONS]                 open the paywall (needs a terminal)
              storefront [OPTIONS] COMMAND [--json]

            Commands:
            \(commands.joined(separator: "\n"))

            Options:
            \(global.joined(separator: "\n"))

            Options of some commands (storefront COMMAND --help):
            \(own.joined(separator: "\n"))

            The store file: --store, else $STOREFRONT_STORE, else
              \(defaultStore)

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
