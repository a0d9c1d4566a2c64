import Foundation
import Glibc
import TestSupport

/// Store files that cannot be used: each command gives a clear error and exit 74,
/// the file stays byte for byte as it was, and `doctor` says what is wrong.
enum DamagedFiles {
    /// One damaged file: how to make it, what the error must say, what doctor must find.
    struct Case {
        var name: String
        /// What the error must say: any of these.
        var saying: [String]
        var doctorCheck: String?
        /// The file itself is sound (read-only, on a full disk): doctor may call it healthy.
        var fileIsSound = false
        /// Makes the file (in `folder`, from a good store's bytes) and returns its path.
        var make: (_ folder: String, _ good: Data) -> String?
        /// Undoes what `make` did outside the file (a mount).
        var cleanUp: (_ folder: String) -> Void = { _ in }
        var commands: [[String]] = [["buy", Demo.coins], ["products"], ["restore"]]
    }

    static func cases(_ context: Context) -> [Case] {
        let root = getuid() == 0
        func write(_ folder: String, _ name: String, _ data: Data) -> String {
            let path = folder + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
            return path
        }
        func sqlite(_ path: String, _ sql: String) -> Bool {
            Processes.run(["/usr/bin/sqlite3", path, sql]).status == 0
        }
        return [
            Case(name: "truncated in its last page", saying: ["truncated"], doctorCheck: "truncated") { folder, good in
                write(folder, "store.sqlite", good.prefix(good.count - 1))
            },
            Case(name: "truncated to half", saying: ["damaged"], doctorCheck: "truncated") { folder, good in
                write(folder, "store.sqlite", good.prefix(good.count / 2))
            },
            Case(name: "random bytes", saying: ["not a store file"], doctorCheck: "format") { folder, _ in
                write(folder, "store.sqlite", Data((0..<16_384).map { _ in UInt8.random(in: 0...255) }))
            },
            Case(name: "random bytes after a SQLite header", saying: ["damaged"], doctorCheck: nil) { folder, good in
                write(folder, "store.sqlite", good.prefix(100) + Data((0..<16_284).map { _ in UInt8.random(in: 0...255) }))
            },
            Case(name: "another application's SQLite file", saying: ["another application"], doctorCheck: "application") { folder, _ in
                let path = folder + "/store.sqlite"
                return sqlite(path, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');") ? path : nil
            },
            Case(name: "a newer schema version", saying: ["newer"], doctorCheck: "schema") { folder, good in
                let path = write(folder, "store.sqlite", good)
                return sqlite(path, "PRAGMA user_version = 99;") ? path : nil
            },
            Case(name: "read-only", saying: ["read-only"], doctorCheck: nil, fileIsSound: true,
                 make: { folder, good in
                     let path = write(folder, "store.sqlite", good)
                     // Root writes through file modes: a read-only bind mount instead.
                     if root {
                         return Processes.shell("mount --bind \"$1\" \"$1\" && mount -o remount,ro,bind \"$1\"", [folder]).status == 0
                             ? path : nil
                     }
                     chmod(path, 0o400)
                     return path
                 },
                 cleanUp: { folder in if root { _ = Processes.shell("umount \"$1\"", [folder]) } }),
            Case(name: "a missing folder", saying: ["does not exist"], doctorCheck: "readable") { folder, _ in
                folder + "/no/such/folder/store.sqlite"
            },
            fullDisk(root: root, write: write),
        ]
    }

    /// A tiny file system filled up (root), else a file-size limit below what a purchase needs.
    static func fullDisk(root: Bool, write: @escaping (String, String, Data) -> String) -> Case {
        if root {
            return Case(name: "a full disk (a filled tmpfs)", saying: ["disk is full", "No space left on device"],
                        doctorCheck: nil, fileIsSound: true,
                        make: { folder, good in
                            let disk = folder + "/disk"
                            try? FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
                            guard Processes.shell("mount -t tmpfs -o size=512k tmpfs \"$1\"", [disk]).status == 0 else { return nil }
                            let path = write(disk, "store.sqlite", good)
                            // Fill what is left, so the purchase's first write fails.
                            _ = Processes.shell("dd if=/dev/zero of=\"$1/fill\" bs=4k 2>/dev/null; sync", [disk])
                            return path
                        },
                        cleanUp: { folder in _ = Processes.shell("umount \"$1/disk\"", [folder]) })
        }
        return Case(name: "a full disk (file-size limit)", saying: ["File too large"], doctorCheck: nil, fileIsSound: true,
                    make: { folder, good in write(folder, "store.sqlite", good) },
                    commands: [["buy", Demo.coins]])
    }

    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        // A good store with purchases, closed (checkpointed) so its main file holds everything.
        let base = context.folder("damaged/base")
        let good = base + "/store.sqlite"
        for arguments in [["buy", Demo.swiftShopping], ["buy", Demo.coins], ["buy", Demo.coins]] {
            let run = Processes.run([context.storefront, "--catalog", context.catalog, "--store", good] + arguments)
            findings.check(run.status == 0, "setup: \(run.summary)")
        }
        guard let goodBytes = contents(good), !goodBytes.isEmpty else {
            findings.fail("setup: no store file")
            return (findings, "no store file to damage")
        }
        var runs = 0, unchanged = 0, changed = 0, doctorRuns = 0
        let all = cases(context)
        for (index, item) in all.enumerated() {
            let folder = context.folder("damaged/\(index)")
            guard let path = item.make(folder, goodBytes) else {
                findings.fail("\(item.name): cannot make the file")
                continue
            }
            defer { item.cleanUp(folder) }
            let before = contents(path)
            let filesBefore = (try? FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)) ?? []
            for arguments in item.commands {
                var command = [context.storefront, "--catalog", context.catalog, "--store", path] + arguments
                if item.name.contains("file-size limit") {
                    command = ["/bin/bash", "-c", "trap '' XFSZ; ulimit -f 8; exec \"$@\"", "bash"] + command
                }
                let run = Processes.run(command)
                runs += 1
                // With --json the error is the one JSON error object on stdout (the --json contract).
                let quiet = arguments.contains("--json") ? run.stdout.contains("\"error\"") : run.stdout.isEmpty
                findings.check(run.status == 74 && !run.crashed && quiet,
                               "\(item.name) \(arguments[0]): expected exit 74 and no output but a --json error, got \(run.summary)")
                findings.check(run.stderr.contains(path) || run.stderr.contains((path as NSString).deletingLastPathComponent),
                               "\(item.name) \(arguments[0]): the error does not name the file: \(run.stderr)")
                findings.check(item.saying.contains { run.stderr.contains($0) },
                               "\(item.name) \(arguments[0]): the error does not say \(item.saying): \(run.stderr)")
            }
            let doctor = Processes.run([context.storefront, "doctor", "--store", path, "--json"])
            doctorRuns += 1
            findings.check([1, 74].contains(doctor.status) || (item.fileIsSound && doctor.status == 0),
                           "\(item.name): doctor exit \(doctor.status): \(doctor.stdout.prefix(400))")
            if let check = item.doctorCheck {
                findings.check(doctor.stdout.contains("\"check\": \"\(check)\""),
                               "\(item.name): doctor does not report \(check): \(doctor.stdout.prefix(600))")
            }
            let after = contents(path)
            if after == before { unchanged += 1 } else {
                changed += 1
                findings.fail("\(item.name): the file changed")
            }
            // Nothing new beside it either, except what a full disk leaves (SQLite's -wal/-shm that could not be removed).
            let filesAfter = (try? FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)) ?? []
            if !item.name.contains("full disk") {
                findings.check(Set(filesAfter) == Set(filesBefore), "\(item.name): files appeared: \(Set(filesAfter).subtracting(filesBefore))")
            }
        }
        let figures = "\(all.count) kinds of damaged file, \(runs) commands refused with 74, \(doctorRuns) doctor reports, "
            + "\(unchanged) files byte-for-byte unchanged, \(changed) changed"
        return (findings, figures)
    }
}
