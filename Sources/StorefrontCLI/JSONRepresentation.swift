import Foundation
import StoreEngine

// The CLI's `--json` documents: StoreKit 2's field names, ISO-8601 dates,
// prices as exact decimal strings.

extension Date {
    /// ISO-8601 in UTC, e.g. `2026-11-30T14:02:11Z`.
    var iso8601: String { formatted(Date.ISO8601FormatStyle()) }
}

extension JSON {
    static func date(_ date: Date?) -> JSON? { date.map { .string($0.iso8601) } }
    static func decimal(_ value: Decimal) -> JSON { .string(DecimalText.format(value)) }
}

extension PendingRequest {
    /// A request waiting for someone: not a transaction yet.
    var json: JSON {
        .object(["id": .integer(id), "productID": .string(productID), "reason": .string(reason.rawValue), "date": .date(date)])
    }
}

extension SubscriptionChange {
    var json: JSON {
        .object([
            "kind": .string(kind.rawValue), "from": .string(fromProductID), "to": .string(toProductID),
            "effectiveDate": .date(effectiveDate), "scheduled": .bool(isScheduled), "note": .string(summary),
            "offerID": offerID.map { .string($0) },
        ])
    }
}

extension Product {
    /// The product as `products --json` lists it; `standing`: the engine's, whose words are `status`.
    func json(owned: Transaction?, balance: Int?, standing: ProductStanding? = nil) -> JSON {
        // The checkmark's answer: a live subscription is the app's at once (currentEntitlements), cache or not.
        let checked = standing.map { $0.ownership == .owned || $0.ownership == .familyShared } ?? (owned != nil)
        let granting = owned ?? (checked ? standing?.transaction : nil)
        return .object([
            "id": .string(id),
            "type": .string(type.rawValue),
            "displayName": .string(displayName),
            "description": .string(description),
            "price": .decimal(price),
            "displayPrice": .string(displayPrice),
            "currencyCode": .string(currencyCode),
            "subscription": subscription.map { info in
                .object([
                    "subscriptionGroupID": .string(info.subscriptionGroupID),
                    "groupDisplayName": .string(info.groupDisplayName),
                    "subscriptionPeriod": .string(info.subscriptionPeriod.description),
                    "groupLevel": .integer(info.groupLevel),
                    "introductoryOffer": info.introductoryOffer.map { offer in
                        .object([
                            "paymentMode": .string(offer.paymentMode.rawValue),
                            "period": .string(offer.period.description),
                            "periodCount": .integer(offer.periodCount),
                            "price": .decimal(offer.price),
                            "displayPrice": .string(offer.displayPrice),
                        ])
                    },
                ])
            },
            "nonRenewingDuration": nonRenewingDuration.map { .string($0.description) },
            "isFamilyShareable": .bool(isFamilyShareable),
            "owned": type == .consumable ? nil : .bool(checked),
            "expirationDate": .date(granting?.expirationDate),
            "balance": type == .consumable ? .integer(balance ?? 0) : nil,
            "ownership": standing.map { .string($0.ownership.name) },
            "status": standing.map { .string($0.text(for: self)) },
        ])
    }
}

extension Transaction {
    /// The transaction with its state at the store's time `now` as the engine words it
    /// (`"state": "purchased, unfinished"`), as `transactions --json` lists it.
    func json(at now: Date, refundRequest: RefundRequest.Status? = nil, subscription: SubscriptionStatus? = nil) -> JSON {
        guard case .object(var members) = json else { return json }
        let after = members.firstIndex { $0.key == "status" }.map { $0 + 1 } ?? members.endIndex
        let state = TransactionState(of: self, at: now, subscription: subscription)
        members.insert(JSON.Member("state", .string(state.text(refundRequest: refundRequest))), at: after)
        return .object(members)
    }

    var json: JSON {
        .object([
            "id": .integer(id),
            "originalID": .integer(originalID),
            "productID": .string(productID),
            "productType": .string(productType.rawValue),
            "purchaseDate": .date(purchaseDate),
            "originalPurchaseDate": .date(originalPurchaseDate),
            "expirationDate": .date(expirationDate),
            "revocationDate": .date(revocationDate),
            "revocationReason": revocationReason.map { .string($0.rawValue) },
            "revocationType": revocationType.map { .string($0.rawValue) },
            "revocationPercentage": revocationPercentage.map { .integer($0) },
            "isUpgraded": .bool(isUpgraded),
            "ownershipType": .string(ownershipType.rawValue),
            "purchasedQuantity": .integer(purchasedQuantity),
            "appAccountToken": appAccountToken.map { .string($0.uuidString.lowercased()) },
            "environment": .string(environment.appStoreName),
            "storefront": .string(storefront),
            "currency": .string(currency),
            "price": .decimal(price),
            "reason": .string(reason.rawValue),
            "subscriptionGroupID": subscriptionGroupID.map { .string($0) },
            "offerType": offerType.map { .string($0.rawValue) },
            "offerID": offerID.map { .string($0) },
            "billingPlanType": commitment.map { .string($0.billingPlanType.rawValue) },
            "commitmentInfo": commitment.map { commitment in
                .object([
                    "billingPeriodNumber": .integer(commitment.billingPeriodNumber),
                    "totalBillingPeriods": .integer(commitment.totalBillingPeriods),
                    "commitmentExpiresDate": .date(commitment.commitmentExpiresDate),
                    "commitmentPrice": .decimal(commitment.commitmentPrice),
                ])
            },
            "status": .string(status.rawValue),
            "pendingReason": pendingReason.map { .string($0.rawValue) },
            "isFinished": .bool(isFinished),
            "account": .string(account),
            "verification": .string(verification.isVerified ? "verified" : "unverified"),
            "verificationError": { if case .unverified(let reason) = verification { .string(reason) } else { nil } }(),
            "jwsRepresentation": jwsRepresentation.map { .string($0) },
        ])
    }
}

extension TransactionEvent {
    var json: JSON {
        .object([
            "date": .date(date),
            "state": .string(state.rawValue),
            "productID": .string(productID),
            "transactionID": transactionID.map { .integer($0) },
            "detail": detail.isEmpty ? nil : .string(detail),
        ])
    }
}

extension StoreError {
    var json: JSON { failure.json }

    /// The failure `--json` and standard error report for this error (exit 1).
    var failure: CommandFailure {
        CommandFailure(name: name, domain: domain, skErrorCode: skErrorCode, message: message,
                lines: ["storefront: \(description)"], code: .failure)
    }
}

extension SubscriptionStatus {
    var json: JSON {
        .object([
            "subscriptionGroupID": .string(groupID),
            "state": .string(state.rawValue),
            "transaction": transaction.json,
            "renewalInfo": renewalInfo.json,
        ])
    }
}

extension Storefront {
    var json: JSON {
        .object(["countryCode": .string(countryCode), "currency": .string(currency), "locale": .string(locale)])
    }
}

extension RenewalInfo {
    var json: JSON {
        .object([
            "originalTransactionID": .integer(originalTransactionID),
            "currentProductID": .string(currentProductID),
            "autoRenewPreference": .string(autoRenewPreference),
            "willAutoRenew": .bool(willAutoRenew),
            "renewalDate": .date(renewalDate),
            "recentSubscriptionStartDate": .date(recentSubscriptionStartDate),
            "currency": .string(currency),
            "renewalPrice": .decimal(renewalPrice),
            "offerType": offerType.map { .string($0.rawValue) },
            "offerID": offerID.map { .string($0) },
            "offerPaymentMode": offerPaymentMode.map { .string($0.rawValue) },
            "expirationReason": expirationReason.map { .string($0.rawValue) },
            "isInBillingRetry": .bool(isInBillingRetry),
            "gracePeriodExpirationDate": .date(gracePeriodExpirationDate),
            "priceIncreaseStatus": .string(priceIncreaseStatus.rawValue),
            "eligibleWinBackOfferIDs": eligibleWinBackOfferIDs.isEmpty ? nil : .array(eligibleWinBackOfferIDs.map(JSON.string)),
            "renewalBillingPlanType": renewalBillingPlanType.map { .string($0.rawValue) },
            "commitmentInfo": commitmentInfo.map { info in
                .object([
                    "autoRenewPreference": .string(info.autoRenewPreference),
                    "willAutoRenew": .bool(info.willAutoRenew),
                    "renewalBillingPlanType": .string(info.renewalBillingPlanType.rawValue),
                    "renewalDate": .date(info.renewalDate),
                    "renewalPrice": .decimal(info.renewalPrice),
                ])
            },
            "jwsRepresentation": jwsRepresentation.map { .string($0) },
        ])
    }
}

extension ProductStanding.Ownership {
    /// Its name in `--json`: `none`, `owned`, `familyShared`, `notOnThisDevice`.
    var name: String {
        switch self {
        case .none: "none"
        case .owned: "owned"
        case .familyShared: "familyShared"
        case .notOnThisDevice: "notOnThisDevice"
        }
    }
}
