import Foundation
import Glibc
import StoreCatalog
import StoreSigning

/// The first 100 bytes of a SQLite database file, read without SQLite: enough to
/// tell a truncated file, which SQLite itself may open and write to as if whole.
package struct StoreFileHeader {
    /// The file's page size in bytes.
    package let pageSize: Int
    /// The database size in pages the header records, when the header vouches for it.
    let pageCount: Int?
    /// `PRAGMA application_id` as the header has it (a store's is ``Ledger/applicationID``).
    let applicationID: UInt32

    /// Reads the header of the file at `path`; nil when it has no SQLite header.
    package init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 100) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    package init?(bytes: [UInt8]) {
        guard bytes.count >= 100, bytes.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        func bigEndian(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        pageSize = raw == 1 ? 65_536 : raw
        applicationID = bigEndian(68)
        // The in-header size is valid only while its "version-valid-for" matches the change counter.
        let count = Int(bigEndian(28))
        pageCount = count > 0 && bigEndian(24) == bigEndian(92) ? count : nil
    }

    /// Why the file at `path` is shorter than its header says, or nil. With frames
    /// in a `-wal` file the main file may legitimately lag behind, so no verdict then.
    static func truncation(at path: String) -> String? {
        // Another process's checkpoint can grow the file and remove its -wal between two of
        // the reads below; a truncated file is still truncated a moment later, a race is not.
        guard measuredTruncation(at: path) != nil else { return nil }
        usleep(100_000)
        return measuredTruncation(at: path)
    }

    private static func measuredTruncation(at path: String) -> String? {
        func walSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? Int ?? 0 }
        // The -wal file is looked at before and after: a checkpoint running meanwhile
        // (header page written, file not yet grown) needs one, and leaves it until done.
        guard walSize() == 0, let header = StoreFileHeader(path: path), let pages = header.pageCount,
              let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int,
              walSize() == 0 else { return nil }
        let expected = pages * header.pageSize
        guard size < expected else { return nil }
        return "is truncated: \(size) bytes, but its header counts \(pages) pages of \(header.pageSize) bytes (\(expected) bytes)"
    }
}
