import StorefrontKit
import StorefrontKitTest
import Testing

/// StoreKit's errors as the store throws them, each a LocalizedError with words to show.
@Suite struct StoreKitErrorTests {
    @Test func purchaseErrorsCarryWhatToTellTheCustomer() async throws {
        try await inSession { _ in
            do {
                _ = try await product(ID.coins).purchase(options: [.quantity(11)])
                Issue.record("eleven coins bought")
            } catch let error as Product.PurchaseError {
                #expect(error == .invalidQuantity)
                #expect(error.errorDescription == "The quantity isn't valid." && error.failureReason?.contains("1 to 10") == true)
                #expect(error.localizedDescription == error.errorDescription)
            }
        }
    }

    @Test func storeKitErrorsCarryWhatToTellTheCustomer() async throws {
        try await inSession { _ in
            try await store().testSession.set(.offline, to: true)
            do {
                _ = try await Product.products(for: [ID.goPro])
                Issue.record("loaded offline")
            } catch let error as StoreKitError {
                guard case .networkError = error else { Issue.record("\(error)"); return }
                #expect(error.errorDescription == "The App Store could not be reached.")
                #expect(error.recoverySuggestion == "Check your connection and try again.")
                #expect((error as any LocalizedError).failureReason?.hasPrefix("Network error") == true)
            }
        }
    }

    @Test func refundAndVerificationErrorsCarryTheirWords() async throws {
        try await inSession { _ in
            let bought = try await buy(ID.goPro)
            #expect(try await bought.beginRefundRequest(in: nil) == .success)
            do {
                _ = try await bought.beginRefundRequest(in: nil)
                Issue.record("asked twice")
            } catch let error as Transaction.RefundRequestError {
                #expect(error == .duplicateRequest && error.errorDescription == "You already asked for a refund of this purchase.")
            }
            try await store().testSession.set(.verificationError, to: .invalidDeviceVerification)
            guard case .success(let result) = try await product(ID.coins).purchase(),
                  case .unverified(_, let error) = result else { Issue.record("expected an unverified purchase"); return }
            #expect(error == .invalidDeviceVerification && error.errorDescription == "The signed data is not for this device.")
            #expect(error.recoverySuggestion == "Do not deliver content for it.")
        }
    }
}
