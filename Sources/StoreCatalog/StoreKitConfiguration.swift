import Foundation

// MARK: - Xcode StoreKit configuration files

/// Reading Xcode StoreKit configuration files (`.storekit`, JSON) into a `Catalog`.
///
/// What is read: `products` (`Consumable`, `NonConsumable`, `NonRenewingSubscription`),
/// the top-level `nonRenewingSubscriptions` of older files, `subscriptionGroups` with
/// their `subscriptions` (`RecurringSubscription`), each product's `productID`,
/// `referenceName`, `displayPrice`, `familyShareable` and `localizations`,
/// a subscription's `groupNumber`, `subscriptionGroupID`, `recurringSubscriptionPeriod`,
/// `introductoryOffer` (or the first of a newer file's `introductoryOffers`),
/// `adHocOffers`, `codeOffers`, `winbackOffers` and `billingPlans` (a one-year subscription's
/// `MONTHLY` plan and its `displayPrice`: `BillingPlan`), the `settings` listed in
/// `startingSettingNames` plus `_storefront` and `_locale`, `subscriptionOffersKeyPair` (the key
/// promotional offers are signed with: `CatalogOfferKey`) and `version`.
/// Everything else (`identifier`, `internalID`, group localizations, `appPolicies`,
/// unknown keys of newer versions) is ignored, never fatal.
public enum StoreKitConfiguration {
    /// The `version.major` values this reader was written against (Xcode 12 to 26 write 1.x to
    /// 6.x); a newer file is read as far as it keeps their shape, with a note.
    public static let knownMajorVersions = 1...6

    /// The starting settings a catalog can carry: a `.storekit` file's `settings`
    /// keys without their leading underscore.
    public static let startingSettingNames = [
        "timeRate", "askToBuyEnabled", "failTransactionsEnabled", "storeKitErrors",
        "billingIssuesEnabled", "billingGracePeriodEnabled", "disableDialogs",
        // Xcode 26's files write it beside billingIssuesEnabled: renewals fail with a billing issue (`StartingSettingDefaults`).
        "renewalBillingIssuesEnabled",
        // A synced file's app: its Apple ID in App Store Connect (the `appAppleId` setting).
        "applicationInternalID",
        // Not Xcode's: the app's Info.plist key SKIncludeConsumableInAppPurchaseHistory, kept with the catalog.
        "includeConsumablesInHistory",
    ]

    /// How long a non-renewing subscription from a `.storekit` file lasts: Xcode's
    /// files hold no duration for them (the app decides), the store needs one.
    public static let nonRenewingDuration = ISODuration(years: 1)

    /// Whether a parsed document is an Xcode StoreKit configuration rather than a
    /// products.json: a top-level object with `identifier`, `version`, `settings` or
    /// `nonRenewingSubscriptions`, or whose products or subscriptions carry
    /// `productID` or `referenceName`.
    public static func recognizes(_ document: JSON) -> Bool {
        document.serializedBytes(pretty: false).withUnsafeBufferPointer { recognizes(Node($0, root: 0)) }
    }

    package static func recognizes(_ document: Node) -> Bool {
        guard let root = try? document.object() else { return false }
        if namesXcodeKeys(root) { return true }
        func carriesXcodeKeys(_ list: Node?) -> Bool {
            guard let items = try? list?.elements() else { return false }
            return items.contains { item in
                guard let fields = try? item.object() else { return false }
                return fields.has("productID") || fields.has("referenceName")
            }
        }
        if carriesXcodeKeys(root.child("products")) { return true }
        if let groups = try? root.child("subscriptionGroups")?.elements() {
            return groups.contains { carriesXcodeKeys($0.child("subscriptions")) }
        }
        return false
    }

    /// Whether the top level has a key only a `.storekit` file has (the first of ``recognizes(_:)``'s tests).
    static func namesXcodeKeys(_ root: Node.Fields) -> Bool {
        ["identifier", "version", "settings", "nonRenewingSubscriptions"].contains { root.child(named: $0) != nil }
    }

    /// Xcode's product `type` names.
    package static let productTypes: [String: ProductType] = [
        "Consumable": .consumable, "NonConsumable": .nonConsumable,
        "NonRenewingSubscription": .nonRenewable, "RecurringSubscription": .autoRenewable,
    ]

    /// Xcode's offer `paymentMode` names (and ours, so a hand-edited file may use either).
    static let paymentModes: [String: PaymentMode] = [
        "free": .freeTrial, "freeTrial": .freeTrial, "payAsYouGo": .payAsYouGo, "payUpFront": .payUpFront,
    ]
}

// MARK: - Reading

extension Node {
    /// The child at `key` unless it is absent or `null` (Xcode writes `"introductoryOffer": null`).
    fileprivate func present(_ key: String) -> Node? {
        guard let node = child(key), !node.isNull else { return nil }
        return node
    }

    /// Whether the value is a string of nothing but spaces (a price Xcode left empty).
    fileprivate var isBlankString: Bool {
        guard case .string(let text) = value else { return false }
        return text.unicodeScalars.allSatisfy(CharacterSet.whitespaces.contains)
    }
}

extension Node.Fields {
    /// The member `key` unless it is absent or `null`.
    fileprivate func present(_ key: String) -> Node? {
        guard let node = child(named: key), !node.isNull else { return nil }
        return node
    }
}

/// Turns a parsed `.storekit` document into a validated `Catalog`, with the same
/// kind of errors as products.json: a JSON path and a reason.
package struct StoreKitReader {
    package let root: Node
    var seenIDs: [String: Node] = [:]  // product id -> its node where first declared (the path is made only for an error)
    package var notes: [String] = []
    /// Notes that name a value's place: its note's index, the path put in front once all are read (one walk).
    private var placedNotes: [(node: Node, note: Int)] = []
    /// The groups read so far, id → display name, and the next suffix to try for a repeated id.
    private var groupNames: [String: String] = [:], groupSuffixes: [String: Int] = [:]

    package init(root: Node) { self.root = root }

    /// A note on the value at `node`, which its JSON path will begin.
    mutating func note(at node: Node, _ text: String) {
        placedNotes.append((node, notes.count))
        notes.append(text)
    }

    package mutating func catalog() throws -> Catalog {
        let root = try self.root.object()
        let (major, minor) = try readVersion(root.present("version"))
        let (storefronts, startingSettings) = try readSettings(root.present("settings"))

        var products: [CatalogProduct] = []
        if let list = root.present("products") {
            for node in try list.elements() {
                products.append(try readProduct(node, in: "products"))
            }
        }
        if let list = root.present("nonRenewingSubscriptions") {
            for node in try list.elements() {
                products.append(try readProduct(node, in: "nonRenewingSubscriptions"))
            }
        }
        var groups: [SubscriptionGroup] = []
        if let list = root.present("subscriptionGroups") {
            for node in try list.elements() {
                let group = try readGroup(node, existing: groups)
                products += group.subscriptions
                groups.append(group.group)
            }
        }

        var catalog = Catalog(paywall: Paywall(), defaultStorefront: storefronts[0].countryCode, storefronts: storefronts,
                              products: products, subscriptionGroups: groups)
        catalog.startingSettings = startingSettings
        catalog.offerKey = try root.present("subscriptionOffersKeyPair")?.offerKeyPair()
        catalog.format = .storeKit(major: major, minor: minor)
        for (placed, path) in zip(placedNotes, Node.paths(of: placedNotes.map(\.node))) {
            notes[placed.note] = "\(path): " + notes[placed.note]
        }
        catalog.notes = notes
        return catalog
    }

    // MARK: Version and settings

    mutating func readVersion(_ version: Node?) throws -> (major: Int, minor: Int) {
        guard let version else { return (1, 0) }
        try version.object()
        let majorNode = try version.required("major")
        let major = try majorNode.integer()
        guard major >= 1 else { throw majorNode.fail("version \(major) is not a StoreKit configuration version (1 or more)") }
        let minorNode = version.present("minor")
        let minor = try minorNode?.integer() ?? 0
        if let minorNode, minor < 0 { throw minorNode.fail("a minor version cannot be negative") }
        if major > StoreKitConfiguration.knownMajorVersions.upperBound {
            notes.append("StoreKit configuration version \(major).\(minor) is newer than the \(StoreKitConfiguration.knownMajorVersions.lowerBound).x–\(StoreKitConfiguration.knownMajorVersions.upperBound).x this reader knows: read as far as it keeps their shape; unknown fields are ignored")
        }
        return (major, minor)
    }

    /// The storefronts (the file's own first) and the starting settings.
    mutating func readSettings(_ settings: Node?) throws -> ([Storefront], [String: String]) {
        if let settings { try settings.object() }

        var home = AppStoreStorefront.named("USA")!
        if let node = settings?.present("_storefront") {
            let code = try node.string()
            if let match = AppStoreStorefront.named(code.uppercased()) {
                home = match
            } else {
                note(at: node, "\(node.describe()) is not one of the App Store's \(AppStoreStorefront.all.count) storefronts (an alpha-3 code such as \"USA\" or \"PRT\"): prices are shown as in USA (USD)")
            }
        }
        var locale = home.locale
        if let node = settings?.present("_locale") {
            locale = try node.localeIdentifier()
        }
        // The file's prices are in its storefront's currency; every other storefront
        // shows the same price in that currency, in its own locale's words.
        let storefronts = [Storefront(countryCode: home.countryCode, currency: home.currency, locale: locale)]
            + AppStoreStorefront.all.filter { $0.countryCode != home.countryCode }
                .map { Storefront(countryCode: $0.countryCode, currency: home.currency, locale: $0.locale) }

        var starting: [String: String] = [:]
        for name in StoreKitConfiguration.startingSettingNames {
            if let node = settings?.present("_" + name), let text = try StoreKitConfiguration.startingSettingText(name, node) {
                starting[name] = text
            }
        }
        notes += StoreKitConfiguration.settingDefaults(from: starting).notes
        return (storefronts, starting)
    }

    // MARK: Products

    /// One product of `products`, `nonRenewingSubscriptions`, or (with `group`) a
    /// group's `subscriptions`. `level` is the default level when `groupNumber` is absent;
    /// `groupInFile` is the group's id as the file writes it (`group` may be derived from it).
    mutating func readProduct(_ node: Node, in list: String, group: String? = nil, groupInFile: String? = nil,
                              level defaultLevel: Int = 1) throws -> CatalogProduct {
        try node.object()
        let idNode = try node.required("productID")
        let id = try idNode.identifier()
        if let earlier = seenIDs[id] {
            throw idNode.fail("duplicate product id \"\(id)\" (first declared at \(earlier.path))")
        }
        seenIDs[id] = idNode

        let type = try readType(node, in: list)
        let referenceName = try node.present("referenceName")?.string()
        let priceNode = try node.required("displayPrice")
        let price: Decimal
        if priceNode.isBlankString {
            // Xcode saves a product whose price was never filled in with "": it is on sale for 0 there.
            note(at: priceNode, "an empty displayPrice is read as 0 (free), as Xcode's StoreKit testing sells it")
            price = 0
        } else {
            price = try priceNode.price()
        }
        let familyShareable = try node.present("familyShareable")?.bool() ?? false

        // Text: every localization by its locale; the base text (the last fallback) is the first entry.
        var localizations: [String: Localization] = [:]
        var base: Localization?
        // An empty name shows the reference name; with none, it stays empty, as Xcode shows it (never the id).
        let fallbackName = referenceName.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? ""
        if let list = node.present("localizations") {
            for entry in try list.elements() {
                try entry.object()
                let localeNode = try entry.required("locale")
                let locale = try localeNode.localeIdentifier()
                if localizations[locale] != nil {
                    note(at: localeNode, "locale \"\(locale)\" repeats in this product's localizations: the first is used")
                    continue
                }
                var displayName = try entry.present("displayName")?.string() ?? ""
                if displayName.trimmingCharacters(in: .whitespaces).isEmpty { displayName = fallbackName }
                let text = Localization(displayName: displayName,
                                        description: try entry.present("description")?.string() ?? "")
                localizations[locale] = text
                if base == nil { base = text }
            }
        }
        let text = base ?? Localization(displayName: fallbackName, description: "")

        var terms: SubscriptionTerms?
        if let group {
            var level = defaultLevel
            if let levelNode = node.present("groupNumber") {
                level = try levelNode.integer()
                guard level >= 1 else { throw levelNode.fail("groupNumber must be 1 or more (1 is the highest tier)") }
            }
            if let groupIDNode = node.present("subscriptionGroupID") {
                let named = try groupIDNode.string()
                guard named == groupInFile ?? group else {
                    throw groupIDNode.fail("subscriptionGroupID \(groupIDNode.describe()) does not match its group's id \"\(groupInFile ?? group)\"")
                }
            }
            var offers: [SubscriptionOffer] = []
            for (key, kind) in [("adHocOffers", SubscriptionOffer.Kind.promotional), ("codeOffers", .code),
                                ("winbackOffers", .winBack)] {
                for offer in try node.present(key)?.elements() ?? [] {
                    if let read = try readOffer(offer, kind: kind) { offers.append(read) }
                }
            }
            let period = try node.required("recurringSubscriptionPeriod").duration()
            let planList = node.present("billingPlans")
            var plans = try planList?.billingPlans(period: period, priceKey: "displayPrice") ?? (plans: [], disabled: [])
            for (type, enabled) in plans.disabled { note(at: enabled, type.disabledNote) }
            var introductory = try readIntroductoryOffers(node, planList: planList)
            for index in plans.plans.indices {
                plans.plans[index].introductoryOffer = introductory.removeValue(forKey: plans.plans[index].type)?.offer
            }
            let upFront = introductory.removeValue(forKey: .billedUpfront)?.offer
            for (type, left) in introductory {
                note(at: left.node, "an introductory offer for the \"\(type.rawValue)\" billing plan, which this subscription does not offer, is left out")
            }
            terms = SubscriptionTerms(groupID: group, period: period, level: level,
                                      introductoryOffer: upFront, offers: offers, billingPlans: plans.plans,
                                      isBilledUpfrontOnSale: !plans.disabled.contains { $0.type == .billedUpfront })
        }

        // A one-time product's offer codes (`codeOffers`, as a subscription's): a price, no period.
        var offerCodes: [SubscriptionOffer] = []
        if terms == nil {
            for offer in try node.present("codeOffers")?.elements() ?? [] {
                guard var read = try readOffer(offer, kind: .code) else { continue }
                (read.paymentMode, read.period, read.periodCount) = (nil, nil, 1)
                read.price = read.price ?? 0
                offerCodes.append(read)
            }
        }
        return CatalogProduct(
            id: id, type: type, displayName: text.displayName, description: text.description,
            price: price, prices: [:], localizations: localizations,
            duration: type == .nonRenewable ? StoreKitConfiguration.nonRenewingDuration : nil,
            subscription: terms, familyShareable: familyShareable, offerCodes: offerCodes)
    }

    /// The product's `type`, which must suit the list it is in.
    func readType(_ node: Node, in list: String) throws -> ProductType {
        let expected: [ProductType] = switch list {
        case "products": [.consumable, .nonConsumable, .nonRenewable]
        case "nonRenewingSubscriptions": [.nonRenewable]
        default: [.autoRenewable]
        }
        // Only `products` mixes types, so only there is `type` required.
        let typeNode: Node
        if list == "products" {
            typeNode = try node.required("type")
        } else if let present = node.present("type") {
            typeNode = present
        } else {
            return expected[0]
        }
        let name = try typeNode.string()
        let names = StoreKitConfiguration.productTypes.filter { expected.contains($0.value) }.keys.sorted()
        guard let type = StoreKitConfiguration.productTypes[name] else {
            let quoted = names.map { "\"\($0)\"" }
            let choices = quoted.count > 1 ? quoted.dropLast().joined(separator: ", ") + " or " + quoted.last! : quoted[0]
            throw typeNode.fail("unknown product type \(typeNode.describe()); expected \(choices)")
        }
        guard expected.contains(type) else {
            let place = type == .autoRenewable ? "a subscription group's \"subscriptions\"" : "\"products\" or \"nonRenewingSubscriptions\""
            throw typeNode.fail("a product of type \"\(name)\" belongs in \(place), not in \"\(list)\"")
        }
        return type
    }

    /// A subscription's introductory offers by billing plan: a newer file's `introductoryOffers`
    /// holds one per plan, each naming its plan (`billingPlanType`) or, without that, in the order
    /// of `billingPlans` (a single entry is the up-front plan's); `introductoryOffer` is the
    /// up-front plan's when the list has none for it. An entry for a plan already given one is
    /// left out with a note, as is an offer Xcode left unfinished (`"paymentMode": "none"`).
    mutating func readIntroductoryOffers(_ subscription: Node, planList: Node?)
        throws -> [BillingPlanType: (offer: IntroductoryOffer, node: Node)] {
        var offers: [BillingPlanType: (offer: IntroductoryOffer, node: Node)] = [:]
        let entries = try subscription.present("introductoryOffers")?.elements() ?? []
        let planOrder = entries.count > 1 ? try planList?.elements() ?? [] : []
        for (position, entry) in entries.enumerated() {
            try entry.object()
            let type: BillingPlanType
            if let typeNode = entry.present("billingPlanType") {
                guard let named = BillingPlanType(rawValue: try typeNode.string()) else {
                    throw typeNode.fail("unknown billing plan type \(typeNode.describe()); expected \"BILLED_UPFRONT\" or \"MONTHLY\"")
                }
                type = named
            } else if position < planOrder.count,
                      let named = try planOrder[position].present("billingPlanType").flatMap({ BillingPlanType(rawValue: try $0.string()) }) {
                type = named
            } else if position == 0 {
                type = .billedUpfront
            } else {
                note(at: entry, "an introductory offer beyond one per billing plan names no plan (billingPlanType): it is left out")
                continue
            }
            if offers[type] != nil {
                note(at: entry, "a second introductory offer for the \"\(type.rawValue)\" billing plan: the first is used")
                continue
            }
            if let offer = try readIntroductoryOffer(entry) { offers[type] = (offer, entry) }
        }
        if offers[.billedUpfront] == nil, let single = subscription.present("introductoryOffer") {
            try single.object()
            if let offer = try readIntroductoryOffer(single) { offers[.billedUpfront] = (offer, single) }
        }
        return offers
    }

    /// One introductory offer; nil (with a note) for one Xcode left unfinished.
    mutating func readIntroductoryOffer(_ node: Node) throws -> IntroductoryOffer? {
        try node.object()
        let modeNode = try node.required("paymentMode")
        if isUnfinished(modeNode) { return nil }
        let mode = try paymentMode(modeNode)
        return IntroductoryOffer(paymentMode: mode, period: try node.required("subscriptionPeriod").duration(),
                                 periodCount: try periodCount(node),
                                 price: try offerPrice(node, mode: mode, required: true) ?? 0)
    }

    /// Whether an offer's `paymentMode` is `"none"`: Xcode writes it for an offer whose payment
    /// mode was never chosen, and leaves the offer out as the app sees the product. So does this
    /// reader, with a note.
    mutating func isUnfinished(_ modeNode: Node) -> Bool {
        guard case .string("none") = modeNode.value else { return false }
        note(at: modeNode, "an offer with paymentMode \"none\" (one Xcode saved unfinished) is left out, as Xcode leaves it out")
        return true
    }

    /// A promotional, offer-code or win-back offer: whatever of its fields is present must be valid.
    /// Nil, with a note, for one Xcode left unfinished (`"paymentMode": "none"`).
    mutating func readOffer(_ node: Node, kind: SubscriptionOffer.Kind) throws -> SubscriptionOffer? {
        try node.object()
        if let modeNode = node.present("paymentMode"), isUnfinished(modeNode) { return nil }
        let mode = try node.present("paymentMode").map(paymentMode)
        // Xcode's code offers list who may redeem them, not codes: their offerID and referenceName redeem them.
        var codes: OfferCodes?
        if kind == .code, let list = node.present("eligibility") {
            var rules = OfferCodes()
            rules.eligibility = Set(try list.elements().compactMap { OfferCodes.Eligibility(rawValue: try $0.string()) })
            codes = rules
        }
        return SubscriptionOffer(
            kind: kind, id: try node.present("offerID")?.identifier(),
            referenceName: try node.present("referenceName")?.string(),
            paymentMode: mode,
            period: try node.present("subscriptionPeriod")?.duration(), periodCount: try periodCount(node),
            price: try offerPrice(node, mode: mode, required: false), codes: codes,
            winBack: kind == .winBack ? try node.winBackRules() : nil)
    }

    /// An offer's `displayPrice` as Xcode and hand edits leave it: a free trial costs 0,
    /// whatever price an earlier edit left behind; an empty (or, when `required`, missing)
    /// price of a paid offer is read as 0. Each repair gets a note.
    mutating func offerPrice(_ node: Node, mode: PaymentMode?, required: Bool) throws -> Decimal? {
        let priceNode = node.present("displayPrice")
        let blank = priceNode?.isBlankString ?? false
        if mode == .freeTrial {
            if let priceNode, !blank, (try? priceNode.price()) != 0 {
                note(at: priceNode, "a free trial costs 0; the leftover price \(priceNode.describe()) is ignored")
            }
            return 0
        }
        if let priceNode, !blank { return try priceNode.price() }
        guard priceNode != nil || required else { return nil }
        let modeName = mode.map { "a \($0.rawValue) offer" } ?? "an offer"
        note(at: priceNode ?? node, "\(modeName) \(priceNode == nil ? "without a displayPrice" : "with an empty displayPrice") is read as costing 0")
        return 0
    }

    package func paymentMode(_ node: Node) throws -> PaymentMode {
        guard let mode = StoreKitConfiguration.paymentModes[try node.string()] else {
            throw node.fail("unknown payment mode \(node.describe()); expected \"free\", \"payAsYouGo\" or \"payUpFront\"")
        }
        return mode
    }

    package func periodCount(_ node: Node) throws -> Int {
        guard let countNode = node.present("numberOfPeriods") else { return 1 }
        let count = try countNode.integer()
        guard count >= 1 else { throw countNode.fail("numberOfPeriods must be 1 or more") }
        return count
    }

    // MARK: Subscription groups

    mutating func readGroup(_ node: Node, existing: [SubscriptionGroup]) throws
        -> (group: SubscriptionGroup, subscriptions: [CatalogProduct]) {
        try node.object()
        let subscriptionNodes = try node.required("subscriptions").elements()
        // The group's id; an older or hand-written file may leave it to its subscriptions, or name only.
        let idNode = node.present("id") ?? subscriptionNodes.lazy.compactMap { $0.present("subscriptionGroupID") }.first
            ?? node.present("name")
        guard let idNode else { throw node.fail("missing required field \"id\"") }
        let idInFile = try idNode.identifier()
        var displayName = try node.present("name")?.string() ?? ""
        if displayName.trimmingCharacters(in: .whitespaces).isEmpty { displayName = idInFile }
        // A hand-edited file may repeat a group's id (a group copied and renamed): the groups
        // stay apart, as the file draws them, each with its own levels, under derived ids;
        // merged, their levels could clash and their plans would replace each other.
        var id = idInFile
        if existing.count != groupNames.count { groupNames = Dictionary(existing.map { ($0.id, $0.displayName) }) { a, _ in a } }
        if let earlier = groupNames[idInFile] {
            // From the last suffix given for this id (a lookup each, not a look through every group each).
            var suffix = groupSuffixes[idInFile, default: 2]
            while groupNames["\(idInFile)-\(suffix)"] != nil { suffix += 1 }
            id = "\(idInFile)-\(suffix)"
            groupSuffixes[idInFile] = suffix + 1
            note(at: idNode, "subscription group id \"\(idInFile)\" repeats (group \"\(earlier)\" has it): this group (\"\(displayName)\") is kept apart as \"\(id)\"")
        }

        var subscriptions: [CatalogProduct] = []
        for (position, subscriptionNode) in subscriptionNodes.enumerated() {
            subscriptions.append(try readProduct(subscriptionNode, in: "subscriptions", group: id, groupInFile: idInFile,
                                                 level: position + 1))
        }
        // By level, highest tier first; Apple lets several subscriptions share a level: file order among them.
        let ordered = subscriptions.enumerated()
            .sorted { ($0.element.subscription!.level, $0.offset) < ($1.element.subscription!.level, $1.offset) }
            .map(\.element.id)
        groupNames[id] = groupNames[id] ?? displayName
        return (SubscriptionGroup(id: id, displayName: displayName, subscriptionIDs: ordered), subscriptions)
    }
}
