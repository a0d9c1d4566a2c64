import Foundation
import StorefrontKit
import StorefrontKitTest
import Synchronization
import Testing
import TestSupport

/// `SKReceiptRefreshRequest` and `AppStore.receiptURL`, the stand-in for `Bundle.main.appStoreReceiptURL`.
@Suite struct SKReceiptRefreshRequestTests {
    /// A test double of an app's request delegate: whether it finished or failed, and where.
    final class RecordingRequestDelegate: NSObject, SKRequestDelegate, @unchecked Sendable {
        private let state = Mutex<(finished: Bool, error: (any Error)?, onMain: Bool)>((false, nil, false))
        var finished: Bool { state.withLock { $0.finished } }
        var error: (any Error)? { state.withLock { $0.error } }
        var calledOnMainQueue: Bool { state.withLock { $0.onMain } }

        func requestDidFinish(_ request: SKRequest) { state.withLock { $0.finished = true; $0.onMain = isOnMainQueue() } }
        func request(_ request: SKRequest, didFailWithError error: any Error) { state.withLock { $0.error = error } }

        func settle(within seconds: Double = 90) async -> Bool {  // returns at once when called back; long only for a loaded run
            await eventually(within: .seconds(seconds), every: .milliseconds(20)) { finished || error != nil }
        }
    }

    /// `INTEGER 21, INTEGER 1, OCTET STRING`: the head of the receipt's expiration date attribute.
    static let expirationField: [UInt8] = [0x02, 0x01, 0x15, 0x02, 0x01, 0x01, 0x04]

    static func contains(_ bytes: Data, _ needle: [UInt8]) -> Bool { bytes.range(of: Data(needle)) != nil }

    func refresh(_ properties: [String: Any]? = nil) async throws -> RecordingRequestDelegate {
        let delegate = RecordingRequestDelegate()
        let request = properties.map { SKReceiptRefreshRequest(receiptProperties: $0) } ?? SKReceiptRefreshRequest()
        request.delegate = delegate
        request.start()
        #expect(await delegate.settle())
        return delegate
    }

    @Test func noReceiptUntilARefreshThenOneListingThePurchases() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let url = try #require(AppStore.receiptURL)
            #expect(url.lastPathComponent == "sandboxReceipt")
            #expect(!FileManager.default.fileExists(atPath: url.path), "a fresh install in the sandbox has no receipt")
            let delegate = try await refresh()
            #expect(delegate.finished && delegate.error == nil && delegate.calledOnMainQueue)
            let empty = try Data(contentsOf: url)
            #expect(empty.first == 0x30, "PKCS#7 DER")
            #expect(!Self.contains(empty, Array(ID.goPro.utf8)))

            _ = try await session.buyProduct(identifier: ID.goPro)
            #expect(AppStore.receiptURL == url)
            #expect(Self.contains(try Data(contentsOf: url), Array(ID.goPro.utf8)), "reading the URL brought the receipt up to date")
        }
    }

    @Test func receiptPropertiesMakeAnExpiredTestReceipt() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            _ = try await refresh()
            let url = try #require(AppStore.receiptURL)
            #expect(!Self.contains(try Data(contentsOf: url), Self.expirationField))
            let delegate = try await refresh([SKReceiptPropertyIsExpired: true])
            #expect(delegate.finished)
            #expect(Self.contains(try Data(contentsOf: url), Self.expirationField), "an expired receipt carries field 21")
            #expect(Self.contains(try Data(contentsOf: try #require(AppStore.receiptURL)), Self.expirationField),
                    "it stays expired until refreshed again")
        }
    }
}
