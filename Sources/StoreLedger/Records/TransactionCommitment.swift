import Foundation
import StoreCatalog

/// Where one billing period of a monthly plan stands in its 12-month commitment, as Apple's
/// `TransactionCommitmentInfo` (and StoreKit's `Transaction.CommitmentInfo`) says it.
public struct TransactionCommitment: Sendable, Hashable {
    /// The plan the period was billed under: `MONTHLY` (up-front transactions carry none).
    public var billingPlanType: BillingPlanType
    /// This period's place in the commitment, 1 to ``totalBillingPeriods`` (`billingPeriodNumber`).
    public var billingPeriodNumber: Int
    /// The commitment's billing periods (`totalBillingPeriods`): 12.
    public var totalBillingPeriods: Int
    /// When the commitment ends (`commitmentExpiresDate`): the last billing period's end.
    public var commitmentExpiresDate: Date
    /// The whole commitment's price (`commitmentPrice`): every billing period's price.
    public var commitmentPrice: Decimal

    public init(billingPlanType: BillingPlanType = .monthly, billingPeriodNumber: Int,
                totalBillingPeriods: Int = BillingPlan.totalBillingPeriods, commitmentExpiresDate: Date, commitmentPrice: Decimal) {
        self.billingPlanType = billingPlanType
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
    }

    /// Whether this is the commitment's last billing period: the next renewal begins a new commitment (or none).
    public var isLastBillingPeriod: Bool { billingPeriodNumber >= totalBillingPeriods }

    /// `commitmentInfo` of Apple's decoded transaction payload: dates in ms, the price in milliunits.
    package var payload: JSON {
        .object([
            "billingPeriodNumber": .integer(billingPeriodNumber),
            "commitmentExpiresDate": .integer(commitmentExpiresDate.milliseconds),
            "commitmentPrice": .integer(NSDecimalNumber(decimal: commitmentPrice * 1000).int64Value),
            "totalBillingPeriods": .integer(totalBillingPeriods),
        ])
    }

    /// The one-line form the store file's `commitment` expression reads back (LedgerCommitments).
    init?(stored text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 5, let type = BillingPlanType(rawValue: String(parts[0])),
              let number = Int(parts[1]), let total = Int(parts[2]), let expires = Int64(parts[3]),
              let price = DecimalText.parse(String(parts[4])) else { return nil }
        self.init(billingPlanType: type, billingPeriodNumber: number, totalBillingPeriods: total,
                  commitmentExpiresDate: Date(milliseconds: expires), commitmentPrice: price)
    }
}
