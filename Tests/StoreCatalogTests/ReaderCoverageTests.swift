import Foundation
import Testing
import TestSupport
@testable import StoreCatalog

/// What the readers know of the formats Xcode writes: its versions, and the fuzzer's dictionary.
@Suite("catalog readers: Xcode's versions and the fuzzer's keys")
struct ReaderCoverageTests {
    @Test("versions up to 6.x, which Xcode 26 writes, are known: no note; a 7.0 file is read with one")
    func xcodeVersions() throws {
        for (major, minor) in [(1, 2), (4, 0), (5, 0), (6, 3)] {
            let text = #"{"version": {"major": \#(major), "minor": \#(minor)}, "products": []}"#
            let catalog = try Catalog.parse(Array(text.utf8), file: "v.storekit")
            #expect(catalog.format == .storeKit(major: major, minor: minor))
            #expect(catalog.notes.isEmpty, "\(major).\(minor): \(catalog.notes)")
        }
        let newer = try Catalog.parse(Array(#"{"version": {"major": 7, "minor": 0}, "products": []}"#.utf8), file: "v.storekit")
        #expect(newer.notes.count == 1 && newer.notes.first?.contains("7.0 is newer than the 1.x–6.x") == true)
    }

    @Test("the fuzzer's dictionary (Tests/Fuzz/catalog.dict) has every key the catalog readers look up")
    func fuzzDictionary() throws {
        let dictionary = try String(contentsOfFile: Repository.file("Tests/Fuzz/catalog.dict"), encoding: .utf8)
        let folder = Repository.file("Sources/StoreCatalog")
        var keys = Set<String>()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".swift") {
            let source = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            for match in source.matches(of: /(?:required|present|child)\("([A-Za-z][A-Za-z_0-9]*)"/) {
                keys.insert(String(match.output.1))
            }
        }
        #expect(keys.count > 50, "the readers' lookups were found")
        let missing = keys.filter { !dictionary.contains("\"\\\"\($0)\\\"\"") }.sorted()
        #expect(missing.isEmpty, "not in catalog.dict: \(missing)")
        for value in ["MONTHLY", "BILLED_UPFRONT", "none"] {
            #expect(dictionary.contains("\"\\\"\(value)\\\"\""), "the value \(value)")
        }
    }
}
