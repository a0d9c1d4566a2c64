import Foundation
import Glibc
import StoreCatalog
import StoreSigning
import Synchronization

/// The store file's `-wal` and `-shm`, which belong to one file only: SQLite pairs whatever
/// files carry those names with whatever file is at the path ("How To Corrupt An SQLite
/// Database File": a database renamed or copied over while in use, a deleted WAL). A file
/// restored under a running process would be mixed with the old file's log; a `-wal` deleted
/// under one leaves every other process an index of frames that are in no file.
package enum StoreFileCompanions {
    /// The byte of the `-shm` every connection keeps a read lock on while it has the file open
    /// (SQLite's "dead man switch", os_unix.c: UNIX_SHM_DMS, after the 8 WAL locks at 120).
    static let deadManSwitch: off_t = 128

    /// The processes other than this one that hold a lock on the file at `path` (from /proc/locks).
    static func lockHolders(of path: String) -> [pid_t] {
        Set(locks(on: path).map(\.pid).filter { $0 != getpid() }).sorted()
    }

    /// The POSIX and flock locks held on the file at `path`, by process: the holder and the lock
    /// as /proc/locks describes it without its line number ("POSIX ADVISORY READ 128 128").
    static func locks(on path: String) -> [(pid: pid_t, lock: String)] {
        var info = stat()
        // Read to its end: /proc/locks says its size is 0, and a process with many stores open
        // (a test run) has pages of locks; a read of one page missed the holder's line.
        guard stat(path, &info) == 0, let file = FileHandle(forReadingAtPath: "/proc/locks") else { return [] }
        defer { try? file.close() }
        let text = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        let device = UInt64(info.st_dev)
        // Linux's dev_t: the major number in bits 8–19 and 32–63, the minor in 0–7 and 20–31.
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        let name = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(info.st_ino))
        // "1: POSIX  ADVISORY  READ 1234 08:02:131 128 128" (a blocked waiter's line starts "1: ->").
        return text.split(separator: "\n").compactMap { line in
            guard !line.contains("->") else { return nil }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let index = fields.firstIndex(where: { $0 == name }), index >= 2,
                  let pid = pid_t(fields[index - 1]) else { return nil }
            return (pid, (fields[1..<(index - 1)] + fields[(index + 1)...]).joined(separator: " "))
        }
    }

    /// Whether process `pid` has the file `device`/`inode` open; nil when that cannot be seen.
    /// One `stat` for each of its open files: with thousands open (a parallel test run), not cheap.
    static func process(_ pid: pid_t, hasOpen device: dev_t, _ inode: ino_t) -> Bool? {
        openFileReads?.count.add(1, ordering: .relaxed)
        let folder = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        for name in names {
            var info = stat()
            if stat(folder + "/" + name, &info) == 0, info.st_dev == device, info.st_ino == inode { return true }
        }
        return false
    }

    /// Counts, for the task that binds it, the reads of a process's open files (``process(_:hasOpen:)``): for tests.
    @TaskLocal package static var openFileReads: Counter?

    /// A count that tasks share (``openFileReads``).
    package final class Counter: Sendable {
        package let count = Atomic<Int>(0)
        package init() {}
    }

    /// Whether a `-wal` or `-shm` is beside the file at `path`: every connection that has it open keeps both.
    static func exist(beside path: String) -> Bool {
        access(path + "-wal", F_OK) == 0 || access(path + "-shm", F_OK) == 0
    }

    /// Whether process `pid` is on its way out (the kernel's PF_EXITING, or a zombie): its locks go with it.
    static func isExiting(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return true }
        // After "pid (comm)": state, ppid, pgrp, session, tty_nr, tpgid, flags.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 6, let flags = UInt64(fields[6]) else { return false }
        let exitingFlag: UInt64 = 0x4  // include/linux/sched.h
        return flags & exitingFlag != 0 || fields[0] == "Z" || fields[0] == "X"
    }

    /// The command name of process `pid`, for a message.
    static func commandName(_ pid: pid_t) -> String {
        let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Why the `-wal` and `-shm` beside the file at `path` (status `info`) are another file's, or nil:
    /// running processes hold the `-shm`, and not one of them has this file open. It is then the
    /// file that was at this path when they opened it (since moved, or renamed over by a backup),
    /// and SQLite would lay its log over this one's pages.
    package static func foreignCompanions(of path: String, info: stat) -> String? {
        // A process closing the store lets go of the file a moment before its -shm lock, and one
        // exiting closes its files in order, the store's before the -shm's: on a loaded machine
        // either can be stalled between the two for a tenth of a second or more. Only holders
        // that are not exiting, seen without the file for a second, hold another file's log.
        var holders: [pid_t] = []
        for look in 0..<10 {
            if look > 0 { usleep(100_000) }
            holders = lockHolders(of: path + "-shm").filter { !isExiting($0) }
            guard !holders.isEmpty else { return nil }
            for pid in holders {
                // One that has this very file open: the companions are this file's (or cannot be told).
                guard let has = process(pid, hasOpen: info.st_dev, info.st_ino), !has else { return nil }
            }
        }
        let names = holders.map { "\($0) (\(commandName($0)))" }.joined(separator: ", ")
        return "its -wal and -shm belong to another file: process \(names) still has open the store file that was at this path (this one was put in its place while it ran: moved or renamed over), and opened with them this file would be mixed with that one's log. Stop \(holders.count == 1 ? "that process" : "those processes") first (each then writes its log back into its own file), then try again; a backup goes back under running processes with `storefront store restore BACKUP`, never by moving it into place"
    }

    /// Why the `-wal` beside the file at `path` is missing while its `-shm` still indexes frames
    /// of it, or nil: the frames' commits are in no file any new process can read. `live`: a
    /// running process still has the deleted log (every other process fails until it stops).
    package static func missingWAL(of path: String) -> (message: String, live: Bool)? {
        var walInfo = stat()
        guard stat(path + "-wal", &walInfo) != 0, errno == ENOENT else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path + "-shm") else { return nil }
        let header = [UInt8]((try? handle.read(upToCount: 48)) ?? Data())
        try? handle.close()
        // The WAL index's header (wal.c, WalIndexHdr): isInit at 12, mxFrame at 16, in this machine's byte order.
        guard header.count == 48, header[12] != 0 else { return nil }
        let frames = header[16..<20].withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        guard frames > 0 else { return nil }
        let holders = lockHolders(of: path + "-shm")
        if holders.isEmpty {
            return ("its -wal file was deleted, but its -shm still indexes \(frames) frames of it: the changes in them are lost; the next open starts from the file as it stands", false)
        }
        let names = holders.map { "\($0) (\(commandName($0)))" }.joined(separator: ", ")
        return ("its -wal file was deleted while process \(names) had it open: its -shm indexes \(frames) frames that are now in no file another process can read, so every command fails. Stop \(holders.count == 1 ? "that process" : "those processes"): each writes the log it still holds back into the store file as it closes. Never delete a -wal by hand", true)
    }
}
