import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing
import TestSupport

/// A library's queue observer that supports hosted content, as libraries for older apps still do:
/// it starts a purchase's downloads and finishes the transaction once they have ended.
final class DownloadingObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    // @unchecked: its logs are behind their locks.
    let finished = Locked<[String]>([])
    let downloadEvents = Locked<[String]>([])

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions where transaction.transactionState == .purchased {
            if transaction.downloads.isEmpty {
                finished.update { $0.append(transaction.payment.productIdentifier) }
                queue.finishTransaction(transaction)
            } else {
                queue.start(transaction.downloads)
            }
        }
    }

    func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {
        for download in downloads {
            let error = (download.error as? SKError).map { " \($0.code)" } ?? ""
            downloadEvents.update { $0.append("\(download.state)\(error)") }
            switch download.state {
            case .finished, .failed, .cancelled:
                if download.transaction.transactionState == .purchased { queue.finishTransaction(download.transaction) }
            default:
                break
            }
        }
    }
}

@Suite("SKDownload") struct SKDownloadObserverTests {
    @Test func aPurchaseHasNoDownloadsSoTheObserverFinishesItAtOnce() async throws {
        try await inSession { _ in
            let queue = SKPaymentQueue.default()
            let observer = DownloadingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            queue.add(SKPayment(product: MockProduct(id: ID.goPro)))
            #expect(await eventually { observer.finished.value == [ID.goPro] })
            #expect(observer.downloadEvents.value.isEmpty, "no hosted content: no download callback")
        }
    }

    @Test func downloadsTheAppHandsTheQueueFailOrCancelAndTheObserverHears() async throws {
        try await inSession { _ in
            let queue = SKPaymentQueue.default()
            let observer = DownloadingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }

            let started = SKDownload()
            #expect(started.state == .waiting && started.timeRemaining == SKDownloadTimeRemainingUnknown)
            queue.start([started])
            #expect(await eventually { observer.downloadEvents.value == ["failed storeProductNotAvailable"] })
            #expect(started.state == .failed && (started.error as? SKError)?.code == .storeProductNotAvailable)

            let cancelled = SKDownload()
            queue.pause([cancelled])       // never active: nothing changes, nothing is told
            queue.cancel([cancelled])
            queue.start([cancelled])       // ended: starting it again changes nothing
            #expect(await eventually { observer.downloadEvents.value.count == 2 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(observer.downloadEvents.value == ["failed storeProductNotAvailable", "cancelled"])
            #expect(cancelled.state == .cancelled && cancelled.error == nil)
            #expect(cancelled.contentURL == nil && cancelled.progress == 0 && cancelled.expectedContentLength == 0)
        }
    }

    @Test func aMockDownloadReportsWhatItOverrides() {
        final class MockDownload: SKDownload, @unchecked Sendable {
            override var state: SKDownloadState { .finished }
            override var contentIdentifier: String { "level-pack" }
            override var contentURL: URL? { URL(fileURLWithPath: "/tmp/level-pack") }
            override var progress: Float { 1 }
        }
        let download: SKDownload = MockDownload()
        #expect(download.state == .finished && download.contentIdentifier == "level-pack" && download.progress == 1)
        #expect(download.contentURL?.lastPathComponent == "level-pack")
    }
}
