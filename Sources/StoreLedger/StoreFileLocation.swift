import Foundation
import Glibc
import StoreCatalog
import StoreSigning

/// Where a store file is, by one rule that every check (size, header, SQLite) and the
/// doctor share: a symbolic link is followed — to a file, a link is the file it leads
/// to; a link that leads nowhere is refused, so nothing is created at a surprising place.
package struct StoreFileLocation {
    /// The path the user gave.
    package let path: String
    /// The file itself: `path` with its links resolved (or `path` when nothing is there yet).
    package let file: String
    /// The file's status (through links), or nil when there is no file yet.
    package let info: stat?

    package init(_ path: String) throws(StoreFileError) {
        self.path = path
        var linkInfo = stat()
        guard lstat(path, &linkInfo) == 0 else {
            // Nothing there: a new store file is made at `path`.
            (file, info) = (path, nil)
            return
        }
        guard linkInfo.st_mode & S_IFMT == S_IFLNK else {
            (file, info) = (path, linkInfo)
            return
        }
        guard let resolved = realpath(path, nil) else {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            throw StoreFileError(path: path, reason: "is a symbolic link to \(target), which does not exist (\(String(cString: strerror(errno)))); a store file is not created through a link")
        }
        defer { free(resolved) }
        file = String(cString: resolved)
        var target = stat()
        guard stat(file, &target) == 0 else {
            throw StoreFileError(path: path, reason: "is a symbolic link to \(file), which cannot be read: \(String(cString: strerror(errno)))")
        }
        info = target
    }

    /// Sets the store file and its `-wal` and `-shm` to 0600 when group or others may
    /// read or write them (it holds the private key); returns a warning for each repaired.
    /// Refuses the file when its mode cannot be repaired (another user's file).
    func repairModes(path: String) throws(StoreFileError) -> [String] {
        var warnings: [String] = []
        for name in [file, file + "-wal", file + "-shm"] {
            var status = stat()
            guard stat(name, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            let mode = String(status.st_mode & 0o777, radix: 8).leftPadded(to: 4)
            guard chmod(name, 0o600) == 0 else {
                throw StoreFileError(path: path, reason: "\((name as NSString).lastPathComponent) has mode \(mode), readable by others, and cannot be set to 0600 (\(String(cString: strerror(errno)))); it holds the store's private key")
            }
            warnings.append("\(name) had mode \(mode), so others could read the store's private key; set to 0600")
        }
        return warnings
    }

    /// Creates `folder` and the missing folders above it, each 0700 whatever the umask.
    static func createPrivateFolder(_ folder: String) throws(StoreFileError) {
        var missing: [String] = []
        var current = folder
        while !current.isEmpty, current != "/", !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            current = current.pathFolder
        }
        for name in missing.reversed() {
            guard mkdir(name, 0o700) == 0 || errno == EEXIST else {
                throw StoreFileError(path: folder, reason: String(cString: strerror(errno)))
            }
            chmod(name, 0o700)  // the umask may have taken bits away; never added
        }
    }
}
