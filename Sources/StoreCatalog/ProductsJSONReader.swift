import Foundation

/// Turns a parsed products.json into a validated `Catalog`.
package struct CatalogReader {
    package let root: Node
    /// The top level's members when the caller has listed them already.
    package let fields: Node.Fields?
    /// Product id -> where it was first declared (the path is made only for an error) and its place in file order,
    /// which becomes the catalog's index (the ids hashed once).
    var seenIDs: [String: (idStart: Int, offset: Int)] = [:]
    /// Whether a product carries a `.storekit` file's `productID` or `referenceName`
    /// (then the file was a `.storekit` one: see `StoreKitConfiguration.recognizes`).
    private(set) var sawXcodeProductKeys = false
    /// What reading repaired or left out, each note beginning with its place.
    var notes: [String] = []

    package init(root: Node, fields: Node.Fields? = nil) { (self.root, self.fields) = (root, fields) }

    package mutating func catalog() throws -> Catalog {
        let root = try fields ?? self.root.object()
        let paywall = try root.child("paywall").map(readPaywall) ?? Paywall()
        let storefronts = try root.child("storefronts").map(readStorefronts) ?? [.unitedStates]
        var defaultStorefront = storefronts[0].countryCode
        if let node = root.child("storefront") {
            defaultStorefront = try node.string()
            guard storefronts.contains(where: { $0.countryCode == defaultStorefront }) else {
                throw node.fail("storefront \(node.describe()) is not among \"storefronts\" (\(storefronts.map(\.countryCode).joined(separator: ", ")))")
            }
        }
        let knownStorefronts = Set(storefronts.map(\.countryCode))

        var products: [CatalogProduct] = []
        let productNodes = try root.child("products")?.elements() ?? []
        // Room for every product and subscription (those counted ahead, their faults reported in turn
        // below): a growing array moved every product it held each time it grew.
        let groupNodes = (try? root.child("subscriptionGroups")?.elements()) ?? []
        let expected = productNodes.count
            + groupNodes.reduce(0) { $0 + ((try? $1.child("subscriptions")?.elements().count) ?? 0) }
        products.reserveCapacity(expected)
        seenIDs.reserveCapacity(expected)
        for node in productNodes {
            products.append(try readProduct(node, storefronts: knownStorefronts, group: nil, offset: products.count))
        }
        var groups: [SubscriptionGroup] = []
        if let list = root.child("subscriptionGroups") {
            for node in try list.elements() {
                let id = try node.required("id").identifier()
                if let earlier = groups.first(where: { $0.id == id }) {
                    throw try node.required("id").fail("duplicate subscription group id \"\(earlier.id)\"")
                }
                let displayName = try node.child("displayName")?.string() ?? id
                // Plans may share a level, as in App Store Connect: a change between them is a crossgrade.
                var levels: [(level: Int, id: String)] = []
                for subscriptionNode in try node.required("subscriptions").elements() {
                    let subscription = try readProduct(subscriptionNode, storefronts: knownStorefronts, group: id,
                                                       offset: products.count)
                    levels.append((subscription.subscription!.level, subscription.id))
                    products.append(subscription)
                }
                // Sorted as (level, id) pairs, not as whole products (each copy retains all of its fields).
                groups.append(SubscriptionGroup(
                    id: id, displayName: displayName, subscriptionIDs: levels.sorted { $0.level < $1.level }.map(\.id)))
            }
        }
        var catalog = Catalog(paywall: paywall, defaultStorefront: defaultStorefront, storefronts: storefronts,
                              products: consume products, subscriptionGroups: groups,
                              fileOrderIndex: seenIDs.mapValues(\.offset))
        catalog.notes = notes
        if let bundle = root.child("bundleID") { catalog.bundleID = try bundle.nonEmptyString() }
        catalog.offerKey = try root.child("subscriptionOffersKeyPair")?.offerKeyPair()
        if let settings = root.child("startingSettings") {
            for (name, node) in try settings.members() {
                guard StoreKitConfiguration.startingSettingNames.contains(name) else {
                    throw node.fail("unknown starting setting \"\(name)\"; expected one of \(StoreKitConfiguration.startingSettingNames.joined(separator: ", "))")
                }
                if let text = try StoreKitConfiguration.startingSettingText(name, node) { catalog.startingSettings[name] = text }
            }
            catalog.notes += StoreKitConfiguration.settingDefaults(
                from: catalog.startingSettings, place: { "startingSettings.\($0)" }).notes
        }
        return catalog
    }

    func readPaywall(_ node: Node) throws -> Paywall {
        try node.object()
        return Paywall(
            title: try node.child("title")?.string() ?? "Storefront",
            subtitle: try node.child("subtitle")?.string() ?? "",
            features: try node.child("features")?.elements().map { try $0.string() } ?? [])
    }

    func readStorefronts(_ node: Node) throws -> [Storefront] {
        let members = try node.members()
        guard !members.isEmpty else { throw node.fail("must name at least one storefront") }
        return try members.map { code, entry in
            guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw entry.fail("storefront code \(Node.describe(.string(code))) is not an ISO 3166-1 alpha-3 code such as \"USA\"")
            }
            guard let currencyNode = entry.child("currency") else {
                throw entry.fail("storefront \"\(code)\" has no currency (an ISO 4217 code such as \"USD\")")
            }
            let currency = try currencyNode.string()
            guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw currencyNode.fail("\(currencyNode.describe()) is not an ISO 4217 currency code such as \"USD\"")
            }
            let locale = try entry.child("locale")?.localeIdentifier() ?? "en_US"
            return Storefront(countryCode: code, currency: currency, locale: locale)
        }
    }

    mutating func readProduct(_ node: Node, storefronts: Set<String>, group: String?, offset: Int) throws -> CatalogProduct {
        let fields = try node.object()
        if fields.has("productID") || fields.has("referenceName") { sawXcodeProductKeys = true }
        let idNode = try fields.required("id")
        let id = try idNode.identifier()
        if let earlier = seenIDs[id] {
            throw idNode.fail("duplicate product id \"\(id)\" (first declared at \(root.node(at: earlier.idStart).path))")
        }
        seenIDs[id] = (idNode.start, offset)

        let type: ProductType
        if group != nil {
            type = .autoRenewable
            if let typeNode = fields.child("type"), try typeNode.string() != ProductType.autoRenewable.rawValue {
                throw typeNode.fail("a subscription in a group must be of type \"autoRenewable\"")
            }
        } else {
            let typeNode = try fields.required("type")
            let name = try typeNode.string()
            guard let known = ProductType(rawValue: name) else {
                throw typeNode.fail("unknown product type \(typeNode.describe()); expected \"consumable\", \"nonConsumable\" or \"nonRenewable\" (auto-renewable subscriptions go in \"subscriptionGroups\")")
            }
            guard known != .autoRenewable else {
                throw typeNode.fail("auto-renewable subscriptions belong in \"subscriptionGroups\", not \"products\"")
            }
            type = known
        }

        var prices: [String: Decimal] = [:]
        if let pricesNode = fields.child("prices") {
            for (code, priceNode) in try pricesNode.members() {
                guard storefronts.contains(code) else {
                    throw priceNode.fail("no storefront \"\(code)\" in \"storefronts\"")
                }
                prices[code] = try priceNode.price()
            }
        }
        var localizations: [String: Localization] = [:]
        if let localizationsNode = fields.child("localizations") {
            for (locale, entry) in try localizationsNode.members() {
                try entry.object()
                if let problem = Node.localeProblem(locale) { throw entry.fail(problem) }
                localizations[locale] = Localization(
                    displayName: try entry.required("displayName").string(),
                    description: try entry.child("description")?.string() ?? "")
            }
        }

        var duration: ISODuration?
        if type == .nonRenewable {
            duration = try fields.required("duration").duration()
        } else if let durationNode = fields.child("duration") {
            throw durationNode.fail("only a nonRenewable product has a \"duration\"")
        }

        var terms: SubscriptionTerms?
        var offerCodes: [SubscriptionOffer] = []
        if let group {
            let levelNode = try fields.required("level")
            let level = try levelNode.integer()
            guard level >= 1 else { throw levelNode.fail("level must be 1 or more (1 is the highest tier)") }
            let period = try fields.required("period").duration()
            let plans = try fields.child("billingPlans")?.billingPlans(
                period: period, priceKey: "price", storefronts: storefronts, introductoryOffer: readOffer)
            for (type, node) in plans?.disabled ?? [] { notes.append("\(node.path): \(type.disabledNote)") }
            terms = SubscriptionTerms(groupID: group, period: period, level: level,
                                      introductoryOffer: try fields.child("introductoryOffer").map(readOffer),
                                      offers: try fields.child("offers")?.elements().map(readSubscriptionOffer) ?? [],
                                      billingPlans: plans?.plans ?? [],
                                      isBilledUpfrontOnSale: !(plans?.disabled ?? []).contains { $0.type == .billedUpfront })
        } else if let offersNode = fields.child("offers") {
            // A one-time product's offers are offer codes at a price (Apple's ONE_TIME offers).
            offerCodes = try offersNode.elements().map { node in
                let offer = try readSubscriptionOffer(node)
                guard offer.kind == .code else {
                    throw node.fail("a \(type.rawValue) product's offers are offer codes (\"type\": \"code\"); only a subscription in \"subscriptionGroups\" has promotional and win-back offers")
                }
                if let extra = ["paymentMode", "period", "periodCount"].lazy.compactMap({ node.child($0) }).first {
                    throw extra.fail("a \(type.rawValue) product's offer code has a price only (it is bought once, not over periods)")
                }
                guard offer.price != nil else { throw node.fail("a \(type.rawValue) product's offer code needs its \"price\" (0 for free)") }
                return offer
            }
        } else if let plansNode = fields.child("billingPlans") {
            throw plansNode.fail("only a subscription in \"subscriptionGroups\" has \"billingPlans\"")
        }

        var availability: [String]?
        if let availabilityNode = fields.child("availability") {
            let elements = try availabilityNode.elements()
            guard !elements.isEmpty else {
                throw availabilityNode.fail("availability lists the storefronts that offer the product; it may not be empty (leave it out for all)")
            }
            availability = try elements.map { element in
                let code = try element.string()
                guard storefronts.contains(code) else { throw element.fail("no storefront \"\(code)\" in \"storefronts\"") }
                return code
            }
        }

        return CatalogProduct(
            id: id, type: type,
            displayName: try fields.required("displayName").nonEmptyString(),
            description: try fields.child("description")?.string() ?? "",
            price: try fields.required("price").price(),
            prices: prices, localizations: localizations, duration: duration, subscription: terms,
            familyShareable: try fields.child("familyShareable")?.bool() ?? false,
            availableStorefronts: availability, offerCodes: offerCodes)
    }

    func readOffer(_ node: Node) throws -> IntroductoryOffer {
        try node.object()
        let modeNode = try node.required("paymentMode")
        guard let mode = PaymentMode(rawValue: try modeNode.string()) else {
            throw modeNode.fail("unknown payment mode \(modeNode.describe()); expected \"freeTrial\", \"payAsYouGo\" or \"payUpFront\"")
        }
        let price: Decimal
        if mode == .freeTrial {
            price = try node.child("price")?.price() ?? 0
        } else {
            price = try node.required("price").price()
        }
        let countNode = node.child("periodCount")
        let count = try countNode?.integer() ?? 1
        if let countNode, count < 1 { throw countNode.fail("periodCount must be 1 or more") }
        return IntroductoryOffer(paymentMode: mode, period: try node.required("period").duration(),
                                 periodCount: count, price: price)
    }

    /// One of `offers`: a promotional, offer-code or win-back offer.
    func readSubscriptionOffer(_ node: Node) throws -> SubscriptionOffer {
        try node.object()
        let typeNode = try node.required("type")
        guard let kind = SubscriptionOffer.Kind(rawValue: try typeNode.string()) else {
            throw typeNode.fail("unknown offer type \(typeNode.describe()); expected \"promotional\", \"code\" or \"winBack\"")
        }
        var mode: PaymentMode?
        if let modeNode = node.child("paymentMode") {
            guard let known = PaymentMode(rawValue: try modeNode.string()) else {
                throw modeNode.fail("unknown payment mode \(modeNode.describe()); expected \"freeTrial\", \"payAsYouGo\" or \"payUpFront\"")
            }
            mode = known
        }
        let countNode = node.child("periodCount")
        let count = try countNode?.integer() ?? 1
        if let countNode, count < 1 { throw countNode.fail("periodCount must be 1 or more") }
        var codes: OfferCodes?
        let codeKeys = ["oneTimeCodes", "customCodes", "redemptionLimit", "perCustomerLimit", "eligibility", "expires"]
        if let keyNode = codeKeys.lazy.compactMap({ node.child($0) }).first {
            guard kind == .code else { throw keyNode.fail("only an offer of type \"code\" has codes") }
            codes = try readOfferCodes(node)
        }
        if kind != .winBack, let keyNode = WinBackRules.keys.lazy.compactMap({ node.child($0) }).first {
            throw keyNode.fail("only an offer of type \"winBack\" has customer eligibility, dates and a priority")
        }
        return SubscriptionOffer(
            kind: kind, id: try node.child("id")?.identifier(), referenceName: try node.child("referenceName")?.string(),
            paymentMode: mode, period: try node.child("period")?.duration(), periodCount: count,
            price: try node.child("price")?.price(), codes: codes, winBack: kind == .winBack ? try node.winBackRules() : nil)
    }

    /// An offer code offer's `oneTimeCodes`, `customCodes`, `redemptionLimit`, `perCustomerLimit`,
    /// `eligibility` (of "new", "existing", "expired") and `expires` (ISO-8601).
    func readOfferCodes(_ node: Node) throws -> OfferCodes {
        var codes = OfferCodes()
        codes.oneTimeCodes = try node.child("oneTimeCodes")?.elements().map { try $0.identifier() } ?? []
        codes.customCodes = try node.child("customCodes")?.elements().map { try $0.identifier() } ?? []
        for (key, minimum) in [("redemptionLimit", 1), ("perCustomerLimit", 1)] {
            guard let child = node.child(key) else { continue }
            let value = try child.integer()
            if value < minimum { throw child.fail("\(key) must be 1 or more") }
            if key == "redemptionLimit" { codes.redemptionLimit = value } else { codes.perCustomerLimit = value }
        }
        if let list = node.child("eligibility") {
            codes.eligibility = Set(try list.elements().map { element in
                guard let value = OfferCodes.Eligibility(rawValue: try element.string()) else {
                    throw element.fail("unknown eligibility \(element.describe()); expected \"new\", \"existing\" or \"expired\"")
                }
                return value
            })
        }
        if let expires = node.child("expires") {
            guard let date = try? Date(expires.string(), strategy: .iso8601) else {
                throw expires.fail("expires must be an ISO-8601 date and time, such as \"2027-01-01T00:00:00Z\"")
            }
            codes.expires = date
        }
        return codes
    }
}
