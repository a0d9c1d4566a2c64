import Foundation
import StoreEngine

extension StoreLocation {
    /// Where a command's catalog and store file are: the engine's one rule, with `--catalog` and
    /// `--store` as the names given.
    static func find(_ invocation: Invocation, environment: [String: String], folder: String? = nil) -> StoreLocation {
        find(catalog: invocation.catalogGiven ? invocation.catalogPath : nil, store: invocation.storePath,
             environment: environment, folder: folder)
    }

    /// What the CLI says when two or more `.storekit` files and no products.json are in the folder.
    static func ambiguity(_ files: [String]) -> String {
        "no products.json here and \(files.count) .storekit files: \(files.joined(separator: ", ")); "
            + "pass the one to use with --catalog PATH"
    }
}

extension Command {
    /// Whether the command needs the catalog's products (their prices, kinds, groups):
    /// the app's commands, the subscription commands and the clock's renewals do; the
    /// history, the requests' answers, refunds, accounts, settings and keys do not.
    var needsCatalog: Bool {
        switch self {
        case .paywall, .products, .buy, .buyOutside, .restore, .entitlements, .consume, .status,
             .autoRenew, .expire, .renew, .advanceClock, .approve, .resolve, .serve,
             .appTransaction, .offerSign, .redeem,  // the bundle id signs them; codes are the catalog's
             .familyAdd, .familyRemove,  // what is shared is what the catalog marks familyShareable
             .priceIncrease, .priceIncreases, .priceIncreaseAnswer, .messages, .messageShow:  // prices, plans, offers
            true
        case .decline, .refund, .deleteTransaction, .accounts, .createAccount, .switchAccount, .clock,
             .transactions, .reset, .settings, .setSetting, .log, .exportKey, .exportRoot, .serveKeys,
             .serveKeysAdd, .serveKeysCreate, .serveKeysRemove, .serveURLs, .serveURLsAdd, .serveURLsRemove, .notifications, .verify, .catalogCheck,
             .offerKeys, .offerKeysAdd, .offerKeysCreate, .offerKeysRemove, .families, .familyCreate,
             .refundRequests, .refundRequestBegin, .refundRequestApprove, .refundRequestDecline, .messageDefer, .messageSend,
             .catalogConvert, .doctor, .help, .version, .completions, .manPage, .replay, .complete:
            false
        }
    }
}
