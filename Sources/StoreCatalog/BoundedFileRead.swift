import Glibc

/// Reads a whole file the user named (a catalog, a scenario) with two bounds: a regular file only,
/// opened without blocking (a FIFO with no writer would hang the open; `/dev/zero` never ends),
/// and at most `limit` bytes (the bytes are held whole while they are read).
package enum BoundedFileRead {
    package enum Failure: Error, Equatable {
        /// No file at the path.
        case missing
        /// A folder.
        case folder
        /// A FIFO, a device or a socket: its kind in words ("a FIFO").
        case notRegular(String)
        /// Larger than the limit.
        case tooLarge
        /// The system's reason it cannot be opened or read.
        case unreadable(String)
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    package static func bytes(of path: String, limit: Int) -> Result<[UInt8], Failure> {
        // O_NONBLOCK: opening a FIFO waits for a writer otherwise; it changes nothing for a regular file.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            return .failure(code == ENOENT || code == ENOTDIR ? .missing : .unreadable(String(cString: strerror(code))))
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(.folder)
        case S_IFIFO: return .failure(.notRegular("a FIFO"))
        case S_IFCHR: return .failure(.notRegular("a character device"))
        case S_IFBLK: return .failure(.notRegular("a block device"))
        case S_IFSOCK: return .failure(.notRegular("a socket"))
        default: return .failure(.notRegular("not a file"))
        }
        guard status.st_size <= limit else { return .failure(.tooLarge) }
        // Its size as taken, and one byte more: a file that grew past the limit since is refused too.
        let capacity = Int(status.st_size) + 1
        var failure: Failure?
        var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            while count < buffer.count {
                let read = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                if read == 0 { return }
                if read < 0 {
                    if errno == EINTR { continue }
                    failure = .unreadable(String(cString: strerror(errno)))
                    return
                }
                count += read
            }
        }
        if let failure { return .failure(failure) }
        // Grown since its size was taken: the rest, to its end or past the limit.
        if bytes.count == capacity {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while bytes.count <= limit {
                let read = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                if read == 0 { break }
                if read < 0 {
                    if errno == EINTR { continue }
                    return .failure(.unreadable(String(cString: strerror(errno))))
                }
                bytes += chunk[..<read]
            }
            if bytes.count > limit { return .failure(.tooLarge) }
        }
        return .success(bytes)
    }
}
