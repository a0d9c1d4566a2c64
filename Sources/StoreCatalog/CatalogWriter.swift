import Foundation

// MARK: - Catalog → products.json

extension Catalog {
    /// The catalog as a products.json document that loads back to an equal catalog
    /// (`storefront catalog convert`), and notes on anything products.json holds
    /// differently: a product without a name (Xcode allows one; products.json does not) is
    /// written with its id as its name. Shared subscription levels are kept as they are.
    public func productsJSON() -> (document: JSON, notes: [String]) {
        let notes = products.filter { $0.displayName.isEmpty }.map { product in
            "\(product.id) has no name (displayName and referenceName are empty); products.json needs one: written as \"\(product.id)\""
        }
        var members: [JSON.Member] = []
        if bundleID != Catalog.defaultBundleID { members.append(JSON.Member("bundleID", .string(bundleID))) }
        if paywall != Paywall() {
            members.append(JSON.Member("paywall", .object([
                "title": .string(paywall.title),
                "subtitle": paywall.subtitle.isEmpty ? nil : .string(paywall.subtitle),
                "features": paywall.features.isEmpty ? nil : .array(paywall.features.map(JSON.string)),
            ])))
        }
        members.append(JSON.Member("storefront", .string(defaultStorefront)))
        members.append(JSON.Member("storefronts", .object(storefronts.map {
            JSON.Member($0.countryCode, .object(["currency": .string($0.currency), "locale": .string($0.locale)]))
        })))
        if let offerKey {
            members.append(JSON.Member("subscriptionOffersKeyPair", .object([
                "id": .string(offerKey.keyID), "privateKey": .string(offerKey.privateKeyBase64),
            ])))
        }
        if !startingSettings.isEmpty {
            members.append(JSON.Member("startingSettings", .object(
                startingSettings.sorted { $0.key < $1.key }.map { JSON.Member($0.key, .string($0.value)) })))
        }

        let plain = products.filter { $0.subscription == nil }
        if !plain.isEmpty {
            members.append(JSON.Member("products", .array(plain.map { productJSON($0, level: nil) })))
        }
        if !subscriptionGroups.isEmpty {
            members.append(JSON.Member("subscriptionGroups", .array(subscriptionGroups.map { group in
                let subscriptions = group.subscriptionIDs.compactMap { product(id: $0) }
                return .object([
                    "id": .string(group.id),
                    "displayName": .string(group.displayName),
                    "subscriptions": .array(subscriptions.map { subscription in
                        productJSON(subscription, level: subscription.subscription!.level)
                    }),
                ])
            })))
        }
        return (.object(members), notes)
    }

    /// One product or subscription in products.json's shape.
    private func productJSON(_ product: CatalogProduct, level: Int?) -> JSON {
        let terms = product.subscription
        return .object([
            "id": .string(product.id),
            "type": terms == nil ? .string(product.type.rawValue) : nil,
            "displayName": .string(product.displayName.isEmpty ? product.id : product.displayName),
            "description": product.description.isEmpty ? nil : .string(product.description),
            "price": .decimalText(product.price),
            "prices": product.prices.isEmpty ? nil : .object(product.prices.sorted { $0.key < $1.key }.map {
                JSON.Member($0.key, .decimalText($0.value))
            }),
            "localizations": product.localizations.isEmpty ? nil : .object(
                product.localizations.sorted { $0.key < $1.key }.map { locale, text in
                    JSON.Member(locale, .object([
                        "displayName": .string(text.displayName),
                        "description": text.description.isEmpty ? nil : .string(text.description),
                    ]))
                }),
            "familyShareable": product.familyShareable ? .bool(true) : nil,
            "availability": product.availableStorefronts.map { .array($0.map(JSON.string)) },
            "duration": product.duration.map { .string($0.description) },
            "period": terms.map { .string($0.period.description) },
            "level": level.map { .integer($0) },
            "introductoryOffer": terms?.introductoryOffer.map(introductoryOfferJSON),
            "offers": terms.flatMap { $0.offers.isEmpty ? nil : .array($0.offers.map(offerJSON)) }
                ?? (product.offerCodes.isEmpty ? nil : .array(product.offerCodes.map(offerJSON))),
            "billingPlans": terms.flatMap { terms in
                // The up-front plan is listed only when turned off: it is the subscription's own price.
                let off: [JSON] = terms.isBilledUpfrontOnSale ? [] : [.object(["billingPlanType": .string(BillingPlanType.billedUpfront.rawValue),
                                                                               "isEnabled": .bool(false)])]
                let plans = off + terms.billingPlans.map(billingPlanJSON)
                return plans.isEmpty ? nil : .array(plans)
            },
        ])
    }

    /// A billing plan in products.json's shape (`BillingPlan`).
    private func billingPlanJSON(_ plan: BillingPlan) -> JSON {
        .object([
            "billingPlanType": .string(plan.type.rawValue),
            "price": .decimalText(plan.price),
            "prices": plan.prices.isEmpty ? nil : .object(plan.prices.sorted { $0.key < $1.key }.map {
                JSON.Member($0.key, .decimalText($0.value))
            }),
            "introductoryOffer": plan.introductoryOffer.map(introductoryOfferJSON),
        ])
    }

    /// An introductory offer in products.json's shape (a subscription's or a billing plan's).
    private func introductoryOfferJSON(_ offer: IntroductoryOffer) -> JSON {
        .object([
            "paymentMode": .string(offer.paymentMode.rawValue),
            "period": .string(offer.period.description),
            "periodCount": offer.periodCount == 1 ? nil : .integer(offer.periodCount),
            "price": offer.paymentMode == .freeTrial && offer.price == 0 ? nil : .decimalText(offer.price),
        ])
    }

    private func offerJSON(_ offer: SubscriptionOffer) -> JSON {
        let base = JSON.object([
            "type": .string(offer.kind.rawValue),
            "id": offer.id.map(JSON.string),
            "referenceName": offer.referenceName.map(JSON.string),
            "paymentMode": offer.paymentMode.map { .string($0.rawValue) },
            "period": offer.period.map { .string($0.description) },
            "periodCount": offer.periodCount == 1 ? nil : .integer(offer.periodCount),
            "price": offer.price.map { .decimalText($0) },
            "oneTimeCodes": offer.codes.flatMap { $0.oneTimeCodes.isEmpty ? nil : .array($0.oneTimeCodes.map(JSON.string)) },
            "customCodes": offer.codes.flatMap { $0.customCodes.isEmpty ? nil : .array($0.customCodes.map(JSON.string)) },
            "redemptionLimit": offer.codes?.redemptionLimit.map { .integer($0) },
            "perCustomerLimit": offer.codes.flatMap { $0.perCustomerLimit == 1 ? nil : .integer($0.perCustomerLimit) },
            "eligibility": offer.codes.flatMap { codes in
                codes.eligibility.count == OfferCodes.Eligibility.allCases.count ? nil
                    : .array(OfferCodes.Eligibility.allCases.filter(codes.eligibility.contains).map { .string($0.rawValue) })
            },
            "expires": offer.codes?.expires.map { .string($0.formatted(.iso8601)) },
        ])
        guard case .object(let members) = base, offer.winBack != nil else { return base }
        return .object(members + winBackMembers(offer.winBack))
    }

    /// A win-back offer's rules under App Store Connect's attribute names.
    private func winBackMembers(_ rules: WinBackRules?) -> [JSON.Member] {
        guard let rules else { return [] }
        let range: [JSON.Member] = [JSON.Member("minimum", .integer(rules.minimumMonthsSinceLastSubscribed))]
            + (rules.maximumMonthsSinceLastSubscribed.map { [JSON.Member("maximum", .integer($0))] } ?? [])
        return [
            JSON.Member("customerEligibilityPaidSubscriptionDurationInMonths", .integer(rules.paidSubscriptionDurationInMonths)),
            JSON.Member("customerEligibilityTimeSinceLastSubscribedInMonths", .object(range)),
        ] + [
            rules.waitBetweenOffersInMonths.map { JSON.Member("customerEligibilityWaitBetweenOffersInMonths", .integer($0)) },
            rules.startDate.map { JSON.Member("startDate", .string($0.formatted(.iso8601))) },
            rules.endDate.map { JSON.Member("endDate", .string($0.formatted(.iso8601))) },
            JSON.Member("priority", .string(rules.priority.rawValue)),
        ].compactMap { $0 }
    }
}

extension JSON {
    /// A price as products.json writes it: an exact decimal string such as `"0.99"`.
    fileprivate static func decimalText(_ value: Decimal) -> JSON { .string(DecimalText.format(value)) }
}
