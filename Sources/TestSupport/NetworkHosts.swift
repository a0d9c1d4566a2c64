import Foundation
import Glibc
import Synchronization

/// Test hosts on this machine: network namespaces, each joined to this one by a veth pair, so
/// that a process run on one reaches a server here only across a network (its own address, a
/// route, TCP), as a process on another machine does.
///
/// This namespace holds every link's near end; each host's default route points at it, so a host
/// reaches any of those addresses (``serverAddress`` among them) and no other host directly.
/// Needs root (CI's user; `ip netns add`) and iproute2's `ip`: see ``unavailableBecause``.
public final class NetworkHosts: Sendable {
    /// One host: its namespace and its address.
    public struct Host: Sendable {
        /// The network namespace's name (`ip netns exec NAME …`).
        public let namespace: String
        /// The host's own address, on its end of the link.
        public let address: String

        /// `arguments` run on this host: the command line to start (`ip netns exec NAME ARGUMENTS…`).
        public func command(_ arguments: [String]) -> [String] {
            [NetworkHosts.ip ?? "ip", "netns", "exec", namespace] + arguments
        }
    }

    public let hosts: [Host]
    /// An address of this namespace that every host reaches: where a server for them listens.
    public let serverAddress: String

    /// Why hosts cannot be made here, or nil when they can.
    public static var unavailableBecause: String? {
        if geteuid() != 0 { return "network namespaces need root (CI runs the tests as root)" }
        if ip == nil { return "no ip command (Debian's iproute2: scripts/install-deps.sh)" }
        return nil
    }

    private static let made = Mutex(0)

    fileprivate static var ip: String? {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Makes `count` hosts; ``remove()`` (or the last reference going) takes them away.
    /// Throws, with what `ip` said, when one cannot be made.
    public init(count: Int) throws {
        if let reason = Self.unavailableBecause { throw NetworkHostsError(description: reason) }
        // Unique to this process and this set: two test runs (or two tests) at once each make their own.
        let set = Self.made.withLock { made in
            made += 1
            return made
        }
        let tag = "\(getpid() % 100_000)s\(set)"
        Self.removeLeftovers()
        // 10.128.x.x to 10.191.x.x, skipping a network another set (another run's) already uses here:
        // two sets on one network made a server unreachable from its hosts.
        let used = Self.addressesInUse()
        let second = (0..<64).map { 128 + (Int(getpid()) + set + $0) % 64 }
            .first { candidate in !used.contains { $0.hasPrefix("10.\(candidate).") } } ?? 128 + (Int(getpid()) + set) % 64
        var made: [Host] = []
        func address(_ index: Int, _ end: Int) -> String { "10.\(second).\(index).\(end)" }
        do {
            for index in 1...count {
                let namespace = "sf\(tag)h\(index)"
                let near = "sf\(tag)n\(index)", far = "sf\(tag)f\(index)"
                made.append(Host(namespace: namespace, address: address(index, 2)))
                try Self.ip(["netns", "add", namespace])
                try Self.ip(["link", "add", near, "type", "veth", "peer", "name", far])
                try Self.ip(["link", "set", far, "netns", namespace])
                try Self.ip(["addr", "add", address(index, 1) + "/24", "dev", near])
                try Self.ip(["link", "set", near, "up"])
                try Self.ip(["-n", namespace, "addr", "add", address(index, 2) + "/24", "dev", far])
                try Self.ip(["-n", namespace, "link", "set", far, "up"])
                try Self.ip(["-n", namespace, "link", "set", "lo", "up"])
                try Self.ip(["-n", namespace, "route", "add", "default", "via", address(index, 1)])
            }
        } catch {
            Self.remove(made)
            throw error
        }
        hosts = made
        serverAddress = address(1, 1)
    }

    deinit { Self.remove(hosts) }

    /// Removes the hosts (a namespace takes its end of the link with it, and the link goes).
    public func remove() { Self.remove(hosts) }

    private static func remove(_ hosts: [Host]) {
        for host in hosts { _ = try? ip(["netns", "delete", host.namespace], quiet: true) }
    }

    /// Removes the hosts a test process left when it was killed (its namespaces carry its pid:
    /// `sf<pid>s<set>h<n>`), so their links' networks are free again.
    private static func removeLeftovers() {
        guard let ip else { return }
        let names = Processes.run([ip, "netns", "list"], timeout: 20).stdout.split(separator: "\n")
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        for name in names {
            guard let match = name.wholeMatch(of: /sf(\d+)s\d+h\d+/), let pid = Int32(match.output.1),
                  pid != getpid() % 100_000, kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? Self.ip(["netns", "delete", name], quiet: true)
        }
    }

    /// The IPv4 addresses of this namespace's links.
    private static func addressesInUse() -> [String] {
        guard let ip else { return [] }
        return Processes.run([ip, "-4", "-o", "addr", "show"], timeout: 20).stdout.split(separator: "\n")
            .compactMap { line in line.split(separator: " ").firstIndex(of: "inet").flatMap { index in
                let words = line.split(separator: " ")
                return index + 1 < words.count ? String(words[index + 1]) : nil
            } }
    }

    private static func ip(_ arguments: [String], quiet: Bool = false) throws {
        guard let ip else { throw NetworkHostsError(description: "no ip command") }
        let outcome = Processes.run([ip] + arguments, timeout: 20)
        if outcome.status != 0, !quiet {
            throw NetworkHostsError(description: "ip \(arguments.joined(separator: " ")): \(outcome.summary)")
        }
    }
}

/// Why test hosts could not be made.
public struct NetworkHostsError: Error, CustomStringConvertible {
    public var description: String
}
