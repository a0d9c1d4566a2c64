import Foundation
import Testing

/// The manager's detail pane with its subscription timeline, search, and the catalog read again
/// when its file changes: on the built binary in tmux, read off the screen.
@Suite("paywall detail pane, search and catalog reload end to end (tmux)")
struct PaywallDetailEndToEndTests {
    @Test("the detail pane of an upgraded subscription: timeline with both plans and now, the facts, the payload; w wraps; 80×24 too")
    func detailPane() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)  // a free week
        try await sandbox.storefront("clock", "advance", "P10D").expect(exit: 0)  // the first paid month
        try await sandbox.storefront("buy", Demo.yearly).expect(exit: 0)  // upgrade at once
        try await withPaywall(sandbox) { session in
            try await session.waitFor("the product table") { $0.contains { $0.contains("Annual Subscription") } }
            try await session.send("t")
            try await session.waitFor("the manager's list") { $0.contains { $0.contains("upgraded") } }
            try await session.send("Enter")
            let pane = try await session.waitFor("the pane with its timeline") { lines in
                lines.contains { $0.contains("Subscription timeline · Premium · store clock") }
                    && lines.contains { $0.contains("Signed payload") }
            }
            let text = pane.joined(separator: "\n")
            // Lanes: the yearly plan (level 1) above the monthly one; the monthly trial then paid, the yearly paid.
            let annual = try #require(pane.firstIndex { $0.hasPrefix("  Annual Subscription") && $0.contains("█") }, "\(text)")
            let monthly = try #require(pane.firstIndex { $0.hasPrefix("  Monthly Subscription ░") }, "\(text)")
            #expect(annual < monthly)
            #expect(pane[monthly].contains("░█") || pane[monthly].contains("░░█"), "trial, then paid: \(pane[monthly])")
            #expect(pane.contains { $0.contains("┴") } && pane.contains { $0.contains("now 20") }, "now on the axis: \(text)")
            #expect(pane.contains { $0.contains("░ trial") && $0.contains("█ paid") && $0.contains("┈ next") })
            #expect(pane.contains { $0.contains("▸ paid") && $0.contains("Annual Subscription (upgrade)") }, "\(text)")
            #expect(pane.contains { $0.contains("next") && $0.contains("from 20") })
            #expect(pane.contains { $0.contains("Price") && $0.contains("$39.99 (USA)") })
            #expect(pane.contains { $0.contains("bundleId") && $0.contains("com.example.stor…") }, "cut with …: \(text)")
            try await session.send("w")
            let wrapped = try await session.waitFor("long values wrapped") { lines in
                lines.contains { $0.hasSuffix("bundleId              com.example.") }
            }
            let bundle = try #require(wrapped.firstIndex { $0.hasSuffix("bundleId              com.example.") })
            #expect(wrapped[bundle + 1].hasSuffix(String(repeating: " ", count: 22) + "storefront"), "\(wrapped.joined(separator: "\n"))")
            try await session.send("End")
            try await session.waitFor("the end of the payload") { $0.contains { $0.contains("sandboxAccount") } }

            try await session.resize(columns: 80, rows: 24)
            try await session.send("Home")
            // The footer, the bottom line, is painted last: a capture can land before it after a resize.
            let small = try await session.waitFor("the pane at 80×24 with its footer naming the pane's keys") { lines in
                lines.count >= 24 && lines.contains { $0.contains("Subscription timeline") } && lines.contains { $0.contains("now 20") }
                    && lines.contains { $0.contains("w wrap") && $0.contains("esc close") }
            }
            #expect(!small.contains { $0.count > 80 }, "\(small.joined(separator: "\n"))")
            try await session.send("Escape")
            try await session.waitFor("the list again") { $0.contains { $0.contains("upgraded") } }
        }
    }

    @Test("/ filters the product table, Enter keeps it with its count on the rule, Esc clears it")
    func search() async throws {
        try await withPaywall(try Sandbox()) { session in
            try await session.waitFor("the product table") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.send("/")
            try await session.tmux("send-keys", "-t", "paywall", "-l", "rage")
            try await session.send("Enter")
            let filtered = try await session.waitFor("the filter kept") { $0.contains { $0.contains("/rage · 1/2") } }
            #expect(filtered.contains { $0.contains("iPhone Rage") } && filtered.contains { $0.contains("Nightly Rage") })
            #expect(!filtered.contains { $0.contains("Swift Shopping") || $0.contains("100 Coins") }, "\(filtered.joined(separator: "\n"))")
            try await session.send("n")
            try await session.waitFor("n to the next match") { $0.contains { $0.contains("▸") && $0.contains("Nightly Rage") } }
            try await session.send("Escape")
            try await session.waitFor("everything again") { lines in
                lines.contains { $0.contains("Swift Shopping") } && lines.contains { $0.contains(" 6/9 ") }
            }
        }
    }

    @Test("editing products.json while the paywall runs: a new product and price appear; a broken file shows its error, the old catalog stays")
    func catalogReload() async throws {
        let sandbox = try Sandbox()
        let original = try String(contentsOfFile: Binary.catalog, encoding: .utf8)
        let catalog = try sandbox.write("products.json", original)
        try await withPaywall(sandbox, catalog: catalog) { session in
            try await session.waitFor("the product table") { $0.contains { $0.contains("Nightly Rage") && $0.contains("$0.99") } }
            var json = try JSONSerialization.jsonObject(with: Data(original.utf8)) as! [String: Any]
            var products = json["products"] as! [[String: Any]]
            products.append(["id": "com.example.gems500", "type": "consumable", "displayName": "500 Gems",
                             "description": "A bag of gems", "price": "4.99"])
            let rage = try #require(products.firstIndex { $0["id"] as? String == Demo.nightlyRage })
            products[rage]["price"] = "1.49"
            json["products"] = products
            // As an editor saves: a new file renamed over the old one.
            try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: catalog),
                                                                                               options: .atomic)
            // (The note said with it, "products.json reloaded: products 1 new, 1 changed", lasts six seconds:
            // a loaded machine can capture the screen later than that; CatalogReloadTests check its words.)
            try await session.waitFor("the new catalog", timeout: .seconds(15)) { lines in
                lines.contains { $0.contains("500 Gems") && $0.contains("$4.99") }
                    && lines.contains { $0.contains("Nightly Rage") && $0.contains("$1.49") }
            }
            // Saved half-edited, in place.
            try Data(#"{ "products": [ { "id": "x" "type": "consumable" } ] }"#.utf8).write(to: URL(fileURLWithPath: catalog))
            let broken = try await session.waitFor("the catalog's error", timeout: .seconds(15)) { lines in
                lines.contains { $0.contains("Catalog Not Reloaded") }
            }
            let message = broken.joined(separator: " ")
            #expect(message.contains("products.json:1:") && message.contains("malformed JSON"), "\(broken.joined(separator: "\n"))")
            // The rows the alert spans are blank beside it (no fragments of the table): that the catalog
            // in use stays is seen once the alert is closed, below.
            try await session.send("Enter")
            try await session.waitFor("the alert closed, the products kept") { lines in
                !lines.contains { $0.contains("Catalog Not Reloaded") } && lines.contains { $0.contains("500 Gems") }
            }
        }
    }
}
