import Foundation
@testable import StorefrontCLI
import Testing

/// `storefront entitlements`: what the account owns now, as `Transaction.currentEntitlements`.
@Suite("entitlements (process)")
struct EntitlementsCommandTests {
    @Test("--product keeps that product's entitlement and its group's renewal info, as currentEntitlements(for:)")
    func productFilters() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)

        let all = try await sandbox.storefront("entitlements", "--json").jsonObject()
        #expect(Set(all.objects("entitlements").compactMap { $0["productID"] as? String }) == [Demo.swiftShopping, Demo.monthly])

        let one = try await sandbox.storefront("entitlements", "--product", Demo.monthly, "--json").jsonObject()
        #expect(one.objects("entitlements").compactMap { $0["productID"] as? String } == [Demo.monthly])
        #expect((one["renewalInfo"] as? [String: Any])?.keys.sorted() == ["premium"])

        let other = try await sandbox.storefront("entitlements", "--product", Demo.swiftShopping, "--json").jsonObject()
        #expect(other.objects("entitlements").compactMap { $0["productID"] as? String } == [Demo.swiftShopping])
        #expect((other["renewalInfo"] as? [String: Any])?.isEmpty == true)

        let none = try await sandbox.storefront("entitlements", "--product", Demo.goPro)
        none.expect(exit: 0)
        #expect(none.stdout.contains("has no entitlement to \(Demo.goPro)."), "\(none)")
    }

    @Test("--product is parsed into the command's own value; an empty id is refused")
    func productParses() throws {
        #expect(try Invocation.parse(["entitlements", "--product", "a.b"]).command == .run(AnyCommand(EntitlementsCommand(productID: "a.b"))))
        #expect(try Invocation.parse(["entitlements"]).command == .run(AnyCommand(EntitlementsCommand())))
        #expect(expectUsageError(["entitlements", "--product="])?.description == "--product needs a product id")
        #expect(expectUsageError(["products", "--product", "a.b"])?.description == "products takes no --product")
    }
}
