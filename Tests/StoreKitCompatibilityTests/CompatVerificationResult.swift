import StorefrontKit

// VerificationResult: headerData, payloadData, signedData, signedDate, device verification.
enum SignedDataCheck {
    static func isForThisDevice(_ result: VerificationResult<Transaction>) -> Bool {
        guard let deviceID = AppStore.deviceVerificationID else { return false }
        let joined = result.deviceVerificationNonce.uuidString.lowercased() + deviceID.uuidString.lowercased()
        return !joined.isEmpty && !result.deviceVerification.isEmpty
    }

    static func parts(_ result: VerificationResult<Transaction>) -> (header: Data, payload: Data, signed: Data, date: Date) {
        (result.headerData, result.payloadData, result.signedData, result.signedDate)
    }

    static func appTransactionParts(_ result: VerificationResult<AppTransaction>) -> (Data, UUID, Date) {
        (result.deviceVerification, result.deviceVerificationNonce, result.signedDate)
    }
}
