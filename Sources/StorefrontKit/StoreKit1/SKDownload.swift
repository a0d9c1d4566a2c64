import Foundation
import Synchronization

/// Where a download of hosted content is, as Apple's `SKDownloadState` (raw values included).
/// Apple deprecated hosted content in iOS 16; it is declared so code that still handles it compiles.
public enum SKDownloadState: Int, Sendable, Hashable {
    case waiting = 0
    case active = 1
    case paused = 2
    case finished = 3
    case failed = 4
    case cancelled = 5
}

/// What ``SKDownload/timeRemaining`` is when the time left is not known, as Apple's constant.
public let SKDownloadTimeRemainingUnknown: TimeInterval = -1

/// Hosted content of a purchase, as Apple's `SKDownload` (deprecated by Apple in iOS 16, still declared).
///
/// This store hosts no content: no transaction has downloads (`SKPaymentTransaction.downloads` is
/// empty), so the downloads an app holds are its own (a mock subclass, or `SKDownload()`).
/// `SKPaymentQueue.start(_:)` and `resume(_:)` fail them (`failed`, an `SKError`), `cancel(_:)`
/// cancels them, `pause(_:)` changes nothing (none is ever `active`); each change reaches the
/// observers' `paymentQueue(_:updatedDownloads:)` on the main queue.
open class SKDownload: NSObject, @unchecked Sendable {
    // @unchecked: the mutable parts are behind `fields`' lock; the rest is immutable.

    struct Fields {
        var state: SKDownloadState = .waiting
        var error: SKError?
    }
    let fields = Mutex(Fields())
    private let storedTransaction: SKPaymentTransaction

    /// A download of nothing, as Apple's `SKDownload()`: `waiting`, no content, an empty transaction.
    public override init() {
        storedTransaction = SKPaymentTransaction()
        super.init()
    }

    /// Where the download is.
    open var state: SKDownloadState { fields.withLock { $0.state } }
    /// Where the download is (Apple's older name, for macOS).
    open var downloadState: SKDownloadState { state }
    /// The identifier of the hosted content: none.
    open var contentIdentifier: String { "" }
    /// The content's size in bytes: 0 (Apple's older name).
    open var contentLength: Int64 { expectedContentLength }
    /// The content's size in bytes: 0.
    open var expectedContentLength: Int64 { 0 }
    /// Where the downloaded content is, once `finished`: never, here.
    open var contentURL: URL? { nil }
    /// The content's version: none.
    open var contentVersion: String { "" }
    /// Why it failed (an `SKError`), for `failed` only.
    open var error: (any Error)? { fields.withLock { $0.error } }
    /// How much is downloaded, 0 to 1: nothing.
    open var progress: Float { 0 }
    /// Seconds left: ``SKDownloadTimeRemainingUnknown``.
    open var timeRemaining: TimeInterval { SKDownloadTimeRemainingUnknown }
    /// The transaction whose content it is.
    open var transaction: SKPaymentTransaction { storedTransaction }

    open override var description: String { "<SKDownload \(contentIdentifier) \(state)>" }
}
