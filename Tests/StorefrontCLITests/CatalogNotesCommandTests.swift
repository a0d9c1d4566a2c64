import Foundation
@testable import StorefrontCLI
import Testing

/// A .storekit file's repair notes on the command line: listed once by catalog check, one line elsewhere.
@Suite("catalog notes on the command line (in process)")
struct CatalogNotesCommandTests {
    /// Runs the command line in process on `catalog`; what it printed, out and err.
    func run(_ arguments: [String], catalog: String, in sandbox: Sandbox) async -> (ExitCode, [String], [String]) {
        let out = Printed(), err = Printed()
        let console = Console(out: out.console.out, err: err.console.out, outData: { _ in })
        let code = await CLI.run(["--catalog", catalog, "--store", sandbox.store] + arguments,
                                 environment: ["HOME": sandbox.home], console: console)
        return (code, out.text.split(separator: "\n").map(String.init), err.text.split(separator: "\n").map(String.init))
    }

    @Test("catalog check summarises a .storekit file's notes once; other commands say so in one line")
    func summarisedOnce() async throws {
        let sandbox = try Sandbox()
        let file = sandbox.path("Products.storekit")
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("Tests/Fuzz/corpus/storekit-v3.storekit").path,
                                         toPath: file)
        let (code, out, _) = await run(["catalog", "check", file], catalog: file, in: sandbox)
        #expect(code == .success)
        let headings = out.filter { $0.hasPrefix("Notes: ") }
        #expect(headings == ["Notes: 3 (what reading the file repaired or ignored; the catalog works as read)"], "\(out)")
        let items = out.filter { $0.hasPrefix("  - ") }
        #expect(items.count == 3 && Set(items).count == 3, "\(out)")
        #expect(!items.contains { $0.contains("Products.storekit: ") }, "the file is named once, above: \(items)")
        let (products, _, err) = await run(["products"], catalog: file, in: sandbox)
        #expect(products == .success)
        let notes = err.filter { $0.hasPrefix("storefront: note:") }
        #expect(notes.count == 1 && notes[0].contains("3 notes") && notes[0].contains("catalog check"), "\(err)")
    }
}
