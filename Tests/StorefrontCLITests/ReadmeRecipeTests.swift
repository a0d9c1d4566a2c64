import Foundation
import Testing

/// The docs' recipes run as written: every product id the README and the guide's pages name is in the bundled catalog.
@Suite("README recipes")
struct ReadmeRecipeTests {
    @Test("every product id a recipe buys, refunds or subscribes to is in products.json")
    func productIDsExist() throws {
        let readme = try Docs.all()
        let catalog = try String(contentsOfFile: Binary.catalog, encoding: .utf8)
        let ids = Set(try Regex(#""id"\s*:\s*"([^"]+)""#).matchesAll(in: catalog))
        // `buy X`, where X is an id (lower case, dots or underscores), not a placeholder (ID, PRODUCT).
        let named = try Regex(#"buy ([a-z][A-Za-z0-9_]*[._][A-Za-z0-9_.]+)"#).matchesAll(in: readme)
        #expect(named.count >= 8, "the recipes name products")
        for id in named { #expect(ids.contains(id), "the docs buy \(id), which products.json does not have") }
    }
}

private extension Regex<AnyRegexOutput> {
    init(_ pattern: String) throws { try self.init(pattern, as: AnyRegexOutput.self) }

    /// The first capture of every match.
    func matchesAll(in text: String) -> [String] {
        text.matches(of: self).compactMap { $0.output[1].substring.map(String.init) }
    }
}
