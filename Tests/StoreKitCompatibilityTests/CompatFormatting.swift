import StorefrontKit

// Product.priceFormatStyle, subscriptionPeriodFormatStyle, subscriptionPeriodUnitFormatStyle,
// SubscriptionPeriod.formatted(_:referenceDate:), Unit.formatted(_:) and localizedDescription.
enum PaywallText {
    static func price(of product: Product) -> String {
        product.price.formatted(product.priceFormatStyle)
    }

    static func monthlyPrice(of product: Product) -> String {
        (product.price / 12).formatted(product.priceFormatStyle)
    }

    static func period(of product: Product) -> String? {
        guard let subscription = product.subscription else { return nil }
        return subscription.subscriptionPeriod.formatted(product.subscriptionPeriodFormatStyle)
    }

    static func period(of product: Product, startingAt date: Date) -> String? {
        product.subscription?.subscriptionPeriod.formatted(product.subscriptionPeriodFormatStyle, referenceDate: date)
    }

    static func unit(of product: Product) -> String? {
        product.subscription?.subscriptionPeriod.unit.formatted(product.subscriptionPeriodUnitFormatStyle)
    }

    static func descriptions(of product: Product) -> [String] {
        var words = [product.type.localizedDescription]
        if let subscription = product.subscription {
            words.append(subscription.subscriptionPeriod.unit.localizedDescription)
            if let intro = subscription.introductoryOffer {
                words.append(intro.type.localizedDescription)
                words.append(intro.paymentMode.localizedDescription)
            }
        }
        return words
    }

    static func descriptions(of status: Product.SubscriptionInfo.Status, _ transaction: Transaction) -> [String] {
        var words = [status.state.localizedDescription, transaction.ownershipType.localizedDescription]
        if let reason = transaction.revocationReason { words.append(reason.localizedDescription) }
        if let offer = transaction.offer {
            words.append(offer.type.localizedDescription)
            if let mode = offer.paymentMode { words.append(mode.localizedDescription) }
        }
        return words
    }
}
