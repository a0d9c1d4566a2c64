import Foundation
import Testing

/// A catalog written to attack: ids with quotes and SQL, names with escape
/// sequences, C1 controls, bidirectional overrides and thousands of characters.
@Suite("hostile catalogs (process)")
struct HostileCatalogTests {
    static let ids = [
        #"it's "quoted"; DROP TABLE transactions;--"#,
        "Robert'); DELETE FROM app_owned; --",
        "x' OR '1'='1",
    ]

    /// The catalog as JSON; names are JSON escapes, so the file itself is plain text.
    static var catalog: String {
        func quoted(_ text: String) -> String {
            String(data: try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]), encoding: .utf8)!
                .dropFirst().dropLast().description
        }
        let long = String(repeating: "長い名前 ", count: 2_000)
        let names = ["\u{1B}]0;pwned\u{07}Evil\u{1B}[2J", "\u{202E}gnp.exe\u{9B}31m" + long, "tab\there\r\nnul\u{0}"]
        let products = zip(ids, names).map { id, name in
            #"{"id": \#(quoted(id)), "type": "nonConsumable", "displayName": \#(quoted(name)), "description": \#(quoted(name)), "price": "0.99"}"#
        }
        return #"{"products": [\#(products.joined(separator: ", "))]}"#
    }

    /// True when a terminal would act on something in `text` rather than show it.
    func hasRawControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F].contains(scalar.value)
        }
    }

    @Test func idsWithQuotesAndSQLAreStoredAndFoundExactly() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("hostile.json", Self.catalog)
        for id in Self.ids {
            let buy = try await sandbox.storefront(["buy", id, "--json"], catalog: catalog)
            buy.expect(exit: 0)
            #expect((try buy.jsonObject()["transaction"] as? [String: Any])?["productID"] as? String == id)
        }
        let history = try await sandbox.storefront(["transactions", "--json"], catalog: catalog).jsonObject()
        #expect(Set(history.objects("transactions").compactMap { $0["productID"] as? String }) == Set(Self.ids))
        let owned = try await sandbox.storefront(["entitlements", "--json"], catalog: catalog).jsonObject()
        #expect(Set(owned.objects("entitlements").compactMap { $0["productID"] as? String }) == Set(Self.ids))
        // Buying again finds each one: owned, not charged twice.
        for id in Self.ids {
            let again = try await sandbox.storefront(["buy", id, "--json"], catalog: catalog).jsonObject()
            #expect(again["alreadyOwned"] as? Bool == true, "\(id)")
        }
        let doctor = try await sandbox.run(["doctor", "--store", sandbox.store])
        doctor.expect(exit: 0)
        #expect(doctor.stdout.contains("all 8 tables present"))
    }

    @Test func noCommandWritesTheCatalogsControlCharactersRaw() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("hostile.json", Self.catalog)
        var commands: [[String]] = [["products"]]
        commands += Self.ids.map { ["buy", $0] }
        commands += [["transactions"], ["entitlements"], ["log"], ["restore"], ["catalog", "check", catalog]]
        for command in commands {
            let run = try await sandbox.storefront(command, catalog: catalog)
            run.expect(exit: 0)
            #expect(!hasRawControl(run.stdout) && !hasRawControl(run.stderr), "\(command):\n\(run)")
        }
    }

    /// Issue 15 (4): an id with a NUL is refused by catalog check, with its place.
    @Test func anIDWithANULIsRefusedWithItsPlace() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("nul.json", #"""
            {"products": [{"id": "pro\u0000.basic", "type": "nonConsumable", "displayName": "Basic", "price": "0.99"},
                          {"id": "pro\u0000.ultimate", "type": "nonConsumable", "displayName": "Ultimate", "price": "99.99"}]}
            """#)
        let run = try await sandbox.run(["catalog", "check", catalog])
        run.expect(exit: 65)
        #expect(run.stderr.contains("products[0].id: an id must not contain control characters (NUL found)"), "\(run)")
    }

    /// Issue 30 (9): `-c /dev/zero`, and a scenario whose catalog line names it, under a 2 GB address-space
    /// limit: the read went on until memory ran out. Each is refused at once, naming the file.
    @Test func aCatalogThatIsADeviceIsRefusedAtOnce() async throws {
        let sandbox = try Sandbox()
        let binary = try #require(Binary.url)
        let scenario = try sandbox.write("zero.scenario", "catalog /dev/zero\nbuy premium\n")
        for arguments in [["--catalog", "/dev/zero", "--store", sandbox.store, "products"], ["replay", scenario]] {
            let run = try await Sandbox.launch(URL(fileURLWithPath: "/bin/bash"),
                                               arguments: ["-c", "ulimit -v 2000000; exec \"$@\"", "bash", binary.path] + arguments,
                                               environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.home], directory: sandbox.folder)
            #expect(run.status != 0 && run.stderr.contains("/dev/zero: is a character device, not a regular file"), "\(run)")
            run.expectNoCrashOutput()
        }
    }
}
