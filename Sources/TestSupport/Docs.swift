import Foundation

/// The repository's documentation as tests read it: the README, CONTRIBUTING.md and the guide's
/// pages under docs/, so a test of what the docs promise reads every page the promise may be on.
public enum Docs {
    /// Whether this run writes the generated pages and pictures instead of comparing with them (`make docs`).
    public static let writing = ProcessInfo.processInfo.environment["STOREFRONT_WRITE_DOCS"] == "1"

    /// The Markdown files of the docs, by path from the root: README.md, CONTRIBUTING.md, docs/*.md.
    public static var pages: [String] {
        let guide = ((try? FileManager.default.contentsOfDirectory(atPath: Repository.file("docs"))) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "CONTRIBUTING.md"] + guide
    }

    /// One page's text.
    public static func text(_ page: String) throws -> String {
        try String(contentsOfFile: Repository.file(page), encoding: .utf8)
    }

    /// Every page's text, joined: for promises that may sit on any page.
    public static func all() throws -> String {
        try pages.map(text).joined(separator: "\n")
    }

    /// Compares a generated file with its committed copy, or writes it when `writing`;
    /// returns a message when they differ (nil when they agree or it was written).
    public static func check(generated: String, at page: String) throws -> String? {
        let url = URL(fileURLWithPath: Repository.file(page))
        if writing {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try generated.write(to: url, atomically: true, encoding: .utf8)
            return nil
        }
        guard let committed = try? String(contentsOf: url, encoding: .utf8) else {
            return "\(page) is missing: `make docs` writes it"
        }
        guard committed != generated else { return nil }
        let old = committed.components(separatedBy: "\n"), new = generated.components(separatedBy: "\n")
        let first = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
        let was = first < old.count ? old[first] : "(end)", now = first < new.count ? new[first] : "(end)"
        return "\(page) is stale (run `make docs`): line \(first + 1) is\n  \(was)\nand would be\n  \(now)"
    }
}
