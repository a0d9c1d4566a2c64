import Foundation
import StoreEngine
import StorefrontUI

/// `catalog check FILE` / `catalog convert FILE`: a catalog file on its own, no store.
enum CatalogCommand: StorefrontCommand {
    /// `catalog check FILE`: validate a products.json or `.storekit` file and summarize it.
    case check(path: String)
    /// `catalog convert FILE`: print a catalog file as products.json.
    case convert(path: String)

    static var help: CommandHelp { CatalogCommands.help }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let args = line.args
        guard args.count == 2, ["check", "convert"].contains(args[0]), !args[1].isEmpty else {
            throw UsageError(description: "catalog takes check FILE or convert FILE", command: line.name)
        }
        return args[0] == "check" ? .check(path: args[1]) : .convert(path: args[1])
    }

    func runAlone(_ context: CommandContext) async -> ExitCode? {
        switch self {
        case .check(let path): CatalogCommands.check(path, json: context.invocation.json, console: context.console)
        case .convert(let path): CatalogCommands.convert(path, json: context.invocation.json, console: context.console)
        }
    }
}

/// `catalog check FILE` and `catalog convert FILE`: work on a catalog file alone,
/// before (and without) any store file.
enum CatalogCommands {
    static let help = CommandHelp(
        name: "catalog", usage: "catalog check FILE [--json] | catalog convert FILE",
        summary: "Validate a products.json or Xcode .storekit file, or convert one to products.json",
        details: """
              check FILE     validate the file with the same rules as --catalog and summarize it:
                             products per type, subscription groups, offers, locales, storefronts,
                             starting settings. Exits 65 on a bad file (the message names the file,
                             line:column or JSON path, and the fault), 66 when it is missing.
              convert FILE   print the file as products.json, which --catalog reads back to the same
                             catalog; add per-storefront prices or paywall copy to it afterwards.
            The format is told by content, not by the file's extension. No store file is opened.
            """,
        operands: [.words(["check", "convert"]), .file])

    /// `catalog check`.
    static func check(_ path: String, json: Bool, console: Console) -> ExitCode {
        let catalog: Catalog
        do {
            catalog = try Catalog.load(contentsOf: path)
        } catch {
            if json {
                var place: [JSON.Member] = []
                switch error.kind {
                case .malformed(let line, let column): place = [JSON.Member("line", .integer(line)), JSON.Member("column", .integer(column))]
                case .invalid(let path): place = [JSON.Member("path", .string(path))]
                case .missing, .unreadable: break
                }
                console.out(JSON.object([CommandFailure.member(name: error.exitCode.name, message: error.description),
                                         JSON.Member("valid", .bool(false)), JSON.Member("file", .string(path))]
                    + place + [JSON.Member("reason", .string(error.reason)),
                               JSON.Member("message", .string(error.description))]).serialized())
            }
            return report(error, console: console)
        }
        let summary = Summary(catalog)
        if json {
            console.out(summary.json(file: path).serialized())
        } else {
            for line in summary.lines(file: path) { console.out(TerminalText.sanitized(line)) }
        }
        return .success
    }

    /// `catalog convert`.
    static func convert(_ path: String, json: Bool, console: Console) -> ExitCode {
        let catalog: Catalog
        do {
            catalog = try Catalog.load(contentsOf: path)
        } catch {
            if json { console.out(JSON.object([CommandFailure.member(name: error.exitCode.name, message: error.description)]).serialized()) }
            return report(error, console: console)
        }
        let (document, notes) = catalog.productsJSON()
        for note in catalog.notes + notes { console.err("storefront: note: \(TerminalText.sanitized(note))") }
        console.out(document.serialized())
        return .success
    }

    /// A catalog error on standard error, and its exit code (as for --catalog).
    static func report(_ error: CatalogError, console: Console) -> ExitCode {
        console.err("storefront: error: \(TerminalText.sanitized(error.description))")
        return error.exitCode
    }
}

// MARK: - The summary

/// What `catalog check` tells about a valid catalog.
private struct Summary {
    let catalog: Catalog
    let counts: [(type: ProductType, count: Int)]
    let offers: [(name: String, count: Int)]
    let locales: [String]

    init(_ catalog: Catalog) {
        self.catalog = catalog
        // Counted in one pass, copying no product (a copy of 10,000 was a seventh of a check).
        var byType: [ProductType: Int] = [:]
        var introductory = 0
        var byKind: [SubscriptionOffer.Kind: Int] = [:]
        var locales: Set<String> = []
        // By index: `for product in` would copy each one (retaining every field) to read three.
        let products = catalog.products
        for index in products.indices {
            byType[products[index].type, default: 0] += 1
            if let terms = products[index].subscription {
                if terms.introductoryOffer != nil { introductory += 1 }
                for offer in terms.offers { byKind[offer.kind, default: 0] += 1 }
            }
            if !products[index].localizations.isEmpty { locales.formUnion(products[index].localizations.keys) }
        }
        counts = ProductType.allCases.map { ($0, byType[$0] ?? 0) }
        offers = [("introductory", introductory)] + SubscriptionOffer.Kind.allCases.map { ($0.rawValue, byKind[$0] ?? 0) }
        self.locales = locales.sorted()
    }

    var formatName: String {
        switch catalog.format {
        case .productsJSON: "products.json"
        case .storeKit(let major, let minor): "Xcode StoreKit configuration (.storekit) version \(major).\(minor)"
        }
    }

    var home: Storefront? { catalog.storefront(catalog.defaultStorefront) }

    func lines(file: String) -> [String] {
        let words: [ProductType: String] = [
            .consumable: "consumable", .nonConsumable: "non-consumable",
            .nonRenewable: "non-renewing", .autoRenewable: "auto-renewable",
        ]
        var lines = ["\(file): valid \(formatName)"]
        lines.append("Products: \(catalog.products.count) — "
                     + counts.map { "\($0.count) \(words[$0.type]!)" }.joined(separator: ", "))
        let groups = catalog.subscriptionGroups.map { group in
            "\(group.displayName) (\(group.id), \(group.subscriptionIDs.count) subscription\(group.subscriptionIDs.count == 1 ? "" : "s"))"
        }
        lines.append("Subscription groups: \(groups.count)\(groups.isEmpty ? "" : " — " + groups.joined(separator: "; "))")
        lines.append("Offers: " + offers.map { "\($0.count) \($0.name)" }.joined(separator: ", "))
        lines.append("Locales: \(locales.isEmpty ? "none (base text only)" : locales.joined(separator: ", "))")
        if let home {
            lines.append("Storefront: \(home.countryCode) (\(home.currency), \(home.locale)); \(catalog.storefronts.count) in all: "
                         + catalog.storefronts.map(\.countryCode).joined(separator: ", "))
        }
        if case .storeKit = catalog.format {
            lines.append("Prices: one per product, in \(home?.currency ?? "USD"), shown in every storefront")
            if counts.contains(where: { $0.type == .nonRenewable && $0.count > 0 }) {
                lines.append("Non-renewing subscriptions last \(StoreKitConfiguration.nonRenewingDuration.spelledOut) (a .storekit file holds no duration)")
            }
        }
        if !catalog.startingSettings.isEmpty {
            lines.append("Starting settings: " + catalog.startingSettings.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
        }
        lines += Self.noteLines(catalog.notes, file: file)
        return lines
    }

    /// The notes summarised once: a count, then each distinct note on its own line (a repeated
    /// one with ×N), the file's name left out of each since the first line names it.
    static func noteLines(_ notes: [String], file: String) -> [String] {
        guard !notes.isEmpty else { return [] }
        var order: [String] = [], counts: [String: Int] = [:]
        let prefixes = [file + ": ", (file as NSString).lastPathComponent + ": "]
        for note in notes {
            let text = prefixes.first(where: note.hasPrefix).map { String(note.dropFirst($0.count)) } ?? note
            if counts[text] == nil { order.append(text) }
            counts[text, default: 0] += 1
        }
        return ["Notes: \(notes.count) (what reading the file repaired or ignored; the catalog works as read)"]
            + order.map { "  - \($0)\(counts[$0]! > 1 ? " (×\(counts[$0]!))" : "")" }
    }

    func json(file: String) -> JSON {
        var version: JSON?
        if case .storeKit(let major, let minor) = catalog.format { version = .string("\(major).\(minor)") }
        return .object([
            "valid": .bool(true),
            "file": .string(file),
            "format": .string(catalog.format == .productsJSON ? "products.json" : "storekit"),
            "version": version,
            "products": .object([JSON.Member("total", .integer(catalog.products.count))]
                + counts.map { JSON.Member($0.type.rawValue, .integer($0.count)) }),
            "subscriptionGroups": .array(catalog.subscriptionGroups.map { group in
                .object([
                    "id": .string(group.id), "displayName": .string(group.displayName),
                    "subscriptions": .integer(group.subscriptionIDs.count),
                ])
            }),
            "offers": .object(offers.map { JSON.Member($0.name, .integer($0.count)) }),
            "locales": .array(locales.map(JSON.string)),
            "storefront": .string(catalog.defaultStorefront),
            "storefronts": .array(catalog.storefronts.map { .string($0.countryCode) }),
            "startingSettings": .object(catalog.startingSettings.sorted { $0.key < $1.key }
                .map { JSON.Member($0.key, .string($0.value)) }),
            "notes": .array(catalog.notes.map(JSON.string)),
        ])
    }
}

extension CatalogError {
    /// 66 when the file is missing or unreadable, 65 when it is not a valid catalog.
    var exitCode: ExitCode {
        switch kind {
        case .missing, .unreadable: .catalogMissing
        case .malformed, .invalid: .badCatalog
        }
    }
}
