import Foundation

/// Where a test session's store folder goes: memory when the machine offers it.
///
/// A session's store lives for one test and commits without flushing (`processCrashSafe`), so
/// a disk gives it nothing but the cost of making and deleting its files: with thousands of
/// sessions at once, ext4 allocating and freeing their inodes was most of the time
/// (docs/performance.md, figure 13a). `TMPDIR`, when set, is the tester's choice and wins;
/// else `/dev/shm` when it is a tmpfs with room; else the usual temporary folder.
enum SessionFolder {
    /// The folder the sessions' folders are made in, chosen once a process.
    static let parent: URL = {
        let chosen = ProcessInfo.processInfo.environment["TMPDIR"].map { !$0.isEmpty } ?? false
        return !chosen && isRoomyMemory("/dev/shm") ? URL(fileURLWithPath: "/dev/shm", isDirectory: true)
                                                    : FileManager.default.temporaryDirectory
    }()

    /// A tmpfs (so says /proc/mounts) this process may write in, with 256 MB free or more.
    static func isRoomyMemory(_ path: String) -> Bool {
        let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        let isTmpfs = mounts.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 2 && fields[1] == path && fields[2] == "tmpfs"
        }
        var info = statvfs()
        guard isTmpfs, access(path, W_OK | X_OK) == 0, statvfs(path, &info) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) >= 256 << 20
    }

    /// A new, empty folder for one session.
    static func make() throws -> URL {
        let folder = parent.appendingPathComponent("sktestsession-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
