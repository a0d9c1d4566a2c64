import Foundation
import StoreEngine

// The catalog file (products.json or .storekit) is watched while the paywall runs: a stat in
// the periodic change check (no read, no write while nothing changes); once a change has settled
// the file is read again, and the store reopened on the new catalog, or the error is shown and
// the catalog in use kept.

/// What `stat` tells of a file, enough to notice an edit in place or a save by rename.
struct FileSignature: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64

    /// The file's signature now; nil when there is none (deleted, or mid-rename).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}

/// The catalog file and what was last made of it.
struct CatalogWatch: Sendable {
    let path: String
    /// The file as it was when last read (the catalog in use, or a bad version already reported).
    private var read: FileSignature?
    /// A change seen at the last check, acted on when the next finds the file the same (a save done).
    private var seen: FileSignature??

    init(path: String) {
        self.path = path
        read = FileSignature(path: path)
    }

    /// Whether the file is to be read again: it differs from what was read and has stayed as it is
    /// since the last check. Then it counts as read.
    mutating func changeSettled() -> Bool {
        let now = FileSignature(path: path)
        guard now != read else {
            seen = nil
            return false
        }
        guard case .some(let last) = seen, last == now else {
            seen = .some(now)
            return false
        }
        (read, seen) = (now, nil)
        return true
    }
}

/// What a new catalog changed, in words for the status line: "products.json reloaded: 2 added, 1 changed".
func reloadSummary(file: String, old: Catalog, new: Catalog) -> String {
    let before = Dictionary(old.products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let after = Set(new.products.map(\.id))
    let added = new.products.filter { before[$0.id] == nil }.count
    let removed = before.keys.filter { !after.contains($0) }.count
    let changed = new.products.filter { product in before[product.id].map { $0 != product } ?? false }.count
    let parts = [(added, "new"), (changed, "changed"), (removed, "gone")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
    let name = (file as NSString).lastPathComponent
    return "\(name) reloaded: " + (parts.isEmpty ? (old.paywall == new.paywall ? "no product changed" : "the paywall's texts changed")
        : "products " + parts.joined(separator: ", "))
}

/// The alert that says a changed catalog could not be used.
let catalogAlertTitle = "Catalog Not Reloaded"
