import StoreCatalog
import StoreSigning

/// Why the store file cannot be used. The file is never modified when this is thrown.
public struct StoreFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// Another process held the file's lock past the busy timeout: the file is fine, try again.
    public var isBusy = false
    public var description: String { "\(path): \(reason)" }

    /// Memberwise, for the targets above this one.
    package init(path: String, reason: String, isBusy: Bool = false) {
        self.path = path
        self.reason = reason
        self.isBusy = isBusy
    }
}
