import StorefrontKit

// RenewalInfo: expirationReason (ExpirationReason?), offerType, offerID, offer, signedDate,
// environment, currency, appAccountToken, deviceVerification.
enum RenewalText {
    static func describe(_ status: Product.SubscriptionInfo.Status) throws -> String {
        let renewalInfo = try status.renewalInfo.payloadValue
        var words: [String] = []
        switch renewalInfo.expirationReason {
        case .autoRenewDisabled?: words.append("You cancelled.")
        case .billingError?: words.append("Your payment failed.")
        case .didNotConsentToPriceIncrease?: words.append("You declined the new price.")
        case .productUnavailable?: words.append("No longer sold.")
        case .some(let reason): words.append(reason.localizedDescription)
        case nil: break
        }
        if renewalInfo.offerType == .promotional, let id = renewalInfo.offerID { words.append("Offer \(id)") }
        if let offer = renewalInfo.offer, let period = offer.period { words.append("\(offer.type) for \(period.value)") }
        if renewalInfo.environment == .xcode || renewalInfo.environment == .sandbox { words.append("(test)") }
        if let code = renewalInfo.currency?.identifier, let price = renewalInfo.renewalPrice { words.append("\(price) \(code)") }
        if let token = renewalInfo.appAccountToken { words.append(token.uuidString) }
        words.append("signed \(renewalInfo.signedDate.timeIntervalSince1970)")
        words.append("\(renewalInfo.deviceVerification.count) bytes, nonce \(renewalInfo.deviceVerificationNonce)")
        return words.joined(separator: " ")
    }
}
