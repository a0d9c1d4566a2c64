import Foundation
import StoreEngine
import StorefrontServer
import Testing

/// Apple's App Store Server Library for Python, the independent oracle: it decodes
/// every signed transaction and renewal info the binary makes, as a server would —
/// in the Xcode environment (no signature check), and in Sandbox with full chain
/// verification against the store's exported root in place of Apple's.
///
/// The library lives in `.build/oracle` (`make oracle`, which `make test` runs). When
/// it is missing these tests fail, saying how to make it: they never skip.
@Suite("Apple's App Store Server Library decodes our signed data")
struct AppleLibraryTests {
    static let python = Binary.repository.appendingPathComponent(".build/oracle/bin/python")
    static let script = Binary.repository.appendingPathComponent("scripts/verify-signed-data.py").path
    static let bundleID = "com.example.storefront"
    static let token = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"

    /// The demo's subscriptions (a free trial; a promotional offer paid up front) and a
    /// second group whose introductory offer is paid as you go, three months at 1.99.
    static let catalog = """
        {
          "storefront": "USA",
          "storefronts": { "USA": { "currency": "USD", "locale": "en_US" }, "GBR": { "currency": "GBP", "locale": "en_GB" } },
          "subscriptionGroups": [
            { "id": "premium", "displayName": "Premium", "subscriptions": [
              { "id": "yearly", "displayName": "Yearly", "description": "A year", "price": "39.99", "period": "P1Y", "level": 1,
                "offers": [ { "type": "promotional", "id": "comeback", "paymentMode": "payUpFront", "period": "P1Y", "price": "29.99" } ] },
              { "id": "monthly", "displayName": "Monthly", "description": "A month", "price": "4.99", "period": "P1M", "level": 2,
                "introductoryOffer": { "paymentMode": "freeTrial", "period": "P1W" } } ] },
            { "id": "plus", "displayName": "Plus", "subscriptions": [
              { "id": "plus.monthly", "displayName": "Plus", "description": "Plus, monthly", "price": "2.99", "period": "P1M", "level": 1,
                "introductoryOffer": { "paymentMode": "payAsYouGo", "period": "P1M", "periodCount": 3, "price": "1.99" } } ] }
          ],
          "products": [
            { "id": "pro", "type": "nonConsumable", "displayName": "Pro", "description": "Pro", "price": "9.99" },
            { "id": "coins", "type": "consumable", "displayName": "Coins", "description": "Coins", "price": "0.99" },
            { "id": "pass", "type": "nonRenewable", "displayName": "Pass", "description": "Pass", "price": "5.99", "duration": "P3M" }
          ]
        }
        """

    /// Purchases of every kind and every offer, a storefront change, an upgrade, renewals
    /// after a clock jump and a refund; returns the catalog's path.
    func makeHistory(_ sandbox: Sandbox) async throws -> String {
        let catalog = try sandbox.write("catalog.json", Self.catalog)
        for arguments in [
            ["offer-keys", "create"],
            ["buy", "monthly", "--app-account-token", Self.token],  // free trial
            ["buy", "plus.monthly"],  // pay as you go
            ["buy", "pro"], ["buy", "coins", "--quantity", "3"], ["buy", "pass"],
            ["settings", "set", "storefront", "GBR"],
            ["settings", "set", "includeConsumablesInHistory", "true"],  // the consumable's JWS too
            ["buy", "yearly", "--offer", "comeback", "--sign"],  // pay up front; upgrades the monthly plan
            ["clock", "advance", "P2M"],  // the plus plan renews twice, at its offer price
        ] {
            try await sandbox.storefront(arguments, catalog: catalog).expect(exit: 0)
        }
        let history = try await sandbox.storefront(["transactions", "--json"], catalog: catalog).jsonObject()
        let pro = try #require((history["transactions"] as? [[String: Any]])?.first { $0["productID"] as? String == "pro" })
        try await sandbox.storefront(["refund", String(try #require(pro["id"] as? Int))], catalog: catalog).expect(exit: 0)
        return catalog
    }

    /// Every JWS the store holds: transactions and each group's renewal info.
    func signedData(_ sandbox: Sandbox, catalog: String) async throws -> (transactions: [String], renewalInfo: [String]) {
        let history = try await sandbox.storefront(["transactions", "--json"], catalog: catalog).jsonObject()
        let transactions = try #require(history["transactions"] as? [[String: Any]]).compactMap { $0["jwsRepresentation"] as? String }
        let status = try await sandbox.storefront(["status", "--json"], catalog: catalog).jsonObject()
        let renewalInfo = try #require(status["statuses"] as? [[String: Any]]).compactMap {
            ($0["renewalInfo"] as? [String: Any])?["jwsRepresentation"] as? String
        }
        return (transactions, renewalInfo)
    }

    /// Runs the oracle; fails the test (never skips) when the library is not installed.
    func oracle(_ sandbox: Sandbox, environment: String, root: String? = nil, transactions: [String],
                renewalInfo: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunResult {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle` (make test does)",
                     sourceLocation: sourceLocation)
        let input = try JSONSerialization.data(withJSONObject: ["transactions": transactions, "renewalInfo": renewalInfo])
        var arguments = [Self.script, "--environment", environment, "--bundle-id", Self.bundleID,
                         "--input", try sandbox.write("signed-\(UUID().uuidString).json", input)]
        if let root { arguments += ["--root", root] }
        return try await Sandbox.launch(Self.python, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"],
                                        directory: sandbox.folder)
    }

    /// The decoded payloads: field name → (value, Python type name).
    func decoded(_ result: RunResult, _ kind: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [[String: (value: Any, type: String)]] {
        let entries = try #require(try result.jsonObject(sourceLocation: sourceLocation)[kind] as? [[String: [String: Any]]],
                                   sourceLocation: sourceLocation)
        return entries.map { $0.compactMapValues { field in field["type"].flatMap { $0 as? String }.map { (field["value"]!, $0) } } }
    }

    /// Checks that each named field is present with the given Python type.
    func expectFields(_ payload: [String: (value: Any, type: String)], _ types: [String: String], _ what: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, type) in types.sorted(by: { $0.key < $1.key }) {
            #expect(payload[name]?.type == type, "\(what): \(name) is \(payload[name].map { "\($0.value) (\($0.type))" } ?? "missing"), want \(type)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("Xcode environment: every transaction and renewal info decodes, each field present with Apple's type")
    func xcode() async throws {
        let sandbox = try Sandbox()
        let catalog = try await makeHistory(sandbox)
        let signed = try await signedData(sandbox, catalog: catalog)
        #expect(signed.transactions.count >= 8)
        #expect(signed.renewalInfo.count == 2)
        let result = try await oracle(sandbox, environment: "Xcode", transactions: signed.transactions,
                                      renewalInfo: signed.renewalInfo)
        result.expect(exit: 0)
        let clock = try await sandbox.storefront(["clock", "--json"], catalog: catalog).jsonObject()
        let nowText = try #require(clock["now"] as? String)
        let storeNow = try #require(ISO8601DateFormatter().date(from: nowText))

        let transactions = try decoded(result, "transactions")
        #expect(transactions.count == signed.transactions.count)
        var offers: [String: String] = [:]
        var lineItems: [String] = []
        for payload in transactions {
            let product = payload["productId"]?.value as? String ?? "?"
            expectFields(payload, [
                "transactionId": "str", "originalTransactionId": "str", "bundleId": "str", "productId": "str",
                "purchaseDate": "int", "originalPurchaseDate": "int", "quantity": "int", "type": "enum:Type",
                "inAppOwnershipType": "enum:InAppOwnershipType", "signedDate": "int", "environment": "enum:Environment",
                "transactionReason": "enum:TransactionReason", "storefront": "str", "storefrontId": "str",
                "price": "int", "currency": "str", "appTransactionId": "str",
            ], product)
            #expect(payload["environment"]?.value as? String == "Xcode")
            let storefront = payload["storefront"]?.value as? String
            #expect(payload["storefrontId"]?.value as? String == ["USA": "143441", "GBR": "143444"][storefront ?? ""])
            #expect((payload["appTransactionId"]?.value as? String)?.allSatisfy(\.isNumber) == true)
            // Store time: signed after the purchase it describes, never after the store's now.
            let signedDate = try #require(payload["signedDate"]?.value as? Int)
            #expect(signedDate >= (payload["purchaseDate"]?.value as? Int ?? .max), "\(product): signed before its purchase")
            #expect(Double(signedDate) / 1000 <= storeNow.timeIntervalSince1970 + 1)
            if payload["type"]?.value as? String == "Auto-Renewable Subscription" {
                expectFields(payload, ["webOrderLineItemId": "str", "expiresDate": "int", "subscriptionGroupIdentifier": "str"], product)
                lineItems.append(payload["webOrderLineItemId"]?.value as? String ?? "")
            } else {
                #expect(payload["webOrderLineItemId"] == nil, "\(product) is not an auto-renewable")
            }
            if let discount = payload["offerDiscountType"] {
                expectFields(payload, ["offerDiscountType": "enum:OfferDiscountType", "offerPeriod": "str", "offerType": "enum:OfferType"], product)
                offers[discount.value as? String ?? "?"] = payload["offerPeriod"]?.value as? String
            }
            if product == "monthly" {
                #expect(payload["appAccountToken"]?.value as? String == Self.token)
            } else {
                #expect(payload["appAccountToken"] == nil, "\(product) was bought without a token")
            }
        }
        #expect(offers == ["FREE_TRIAL": "P1W", "PAY_AS_YOU_GO": "P3M", "PAY_UP_FRONT": "P1Y"])
        #expect(Set(lineItems).count == lineItems.count, "one webOrderLineItemId per period: \(lineItems)")
        #expect(lineItems.count >= 4)  // monthly, yearly, plus and its renewals
        #expect(transactions.contains { $0["revocationDate"]?.type == "int" && $0["productId"]?.value as? String == "pro" })

        let renewals = try decoded(result, "renewalInfo")
        #expect(renewals.count == 2)
        for payload in renewals {
            let product = payload["productId"]?.value as? String ?? "?"
            expectFields(payload, [
                "originalTransactionId": "str", "productId": "str", "autoRenewProductId": "str",
                "autoRenewStatus": "enum:AutoRenewStatus", "signedDate": "int", "environment": "enum:Environment",
                "recentSubscriptionStartDate": "int", "renewalDate": "int", "currency": "str", "renewalPrice": "int",
                "appTransactionId": "str",
            ], product)
            let signedDate = try #require(payload["signedDate"]?.value as? Int)
            #expect(abs(Double(signedDate) / 1000 - storeNow.timeIntervalSince1970) < 60, "renewal info signed at store time")
        }
        #expect(renewals.first { $0["productId"]?.value as? String == "yearly" }?["appAccountToken"] == nil)
        #expect(Set(renewals.compactMap { $0["appTransactionId"]?.value as? String })
                == Set(transactions.compactMap { $0["appTransactionId"]?.value as? String }), "one appTransactionId per account")
    }

    @Test("Sandbox: the library verifies every x5c chain against our exported root; another store's root is refused")
    func sandboxChain() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "environment", "Sandbox").expect(exit: 0)
        let catalog = try await makeHistory(sandbox)
        let signed = try await signedData(sandbox, catalog: catalog)
        let exported = try await sandbox.storefront(["key", "export", "--root", "--der"], catalog: catalog)
        exported.expect(exit: 0)
        let root = try sandbox.write("root.der", exported.stdoutBytes)

        let result = try await oracle(sandbox, environment: "Sandbox", root: root, transactions: signed.transactions,
                                      renewalInfo: signed.renewalInfo)
        result.expect(exit: 0)
        let transactions = try decoded(result, "transactions")
        #expect(transactions.count == signed.transactions.count)
        #expect(transactions.allSatisfy { $0["environment"]?.value as? String == "Sandbox" })
        #expect(try decoded(result, "renewalInfo").count == 2)

        // Another store's root: the same library refuses the chain.
        let other = try Sandbox()
        let otherRoot = try await other.storefront("key", "export", "--root", "--der")
        let refused = try await oracle(sandbox, environment: "Sandbox", root: try sandbox.write("other.der", otherRoot.stdoutBytes),
                                       transactions: Array(signed.transactions.prefix(1)), renewalInfo: [])
        #expect(refused.status == 1 && refused.stderr.contains("VERIFICATION_FAILURE"), "\(refused)")
        // Data signed for Xcode is not Sandbox data.
        let xcode = try Sandbox()
        try await xcode.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let xcodeJWS = try #require(((try await xcode.storefront("transactions", "--json").jsonObject())["transactions"]
            as? [[String: Any]])?.first?["jwsRepresentation"] as? String)
        let xcodeRoot = try await xcode.storefront("key", "export", "--root", "--der")
        let wrongEnvironment = try await oracle(sandbox, environment: "Sandbox", root: try sandbox.write("x.der", xcodeRoot.stdoutBytes),
                                                transactions: [xcodeJWS], renewalInfo: [])
        #expect(wrongEnvironment.status == 1 && wrongEnvironment.stderr.contains("INVALID_ENVIRONMENT"), "\(wrongEnvironment)")
    }

    @Test("a one-time product's offer code: the library decodes offerType 3 and offerDiscountType ONE_TIME, without a period")
    func oneTimeOfferCode() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("codes.json", """
            { "storefront": "USA", "bundleID": "\(Self.bundleID)",
              "products": [ { "id": "coins", "type": "consumable", "displayName": "100 Coins", "price": "0.99",
                              "offers": [ { "type": "code", "id": "coins.half", "price": "0.49", "customCodes": ["COINS50"] } ] } ] }
            """)
        try await sandbox.storefront(["redeem", "COINS50"], catalog: catalog).expect(exit: 0)
        try await sandbox.storefront(["settings", "set", "includeConsumablesInHistory", "true"], catalog: catalog).expect(exit: 0)
        let signed = try await signedData(sandbox, catalog: catalog)
        try #require(signed.transactions.count == 1, "\(signed)")
        let result = try await oracle(sandbox, environment: "Xcode", transactions: signed.transactions, renewalInfo: [])
        result.expect(exit: 0)
        let payload = try #require(try decoded(result, "transactions").first)
        #expect(payload["offerType"]?.type == "enum:OfferType" && "\(payload["offerType"]!.value)" == "3", "\(result)")
        #expect(payload["offerDiscountType"]?.type == "enum:OfferDiscountType" && payload["offerDiscountType"]?.value as? String == "ONE_TIME", "\(result)")
        #expect(payload["offerIdentifier"]?.value as? String == "coins.half", "\(result)")
        #expect(payload["offerPeriod"] == nil, "\(result)")
        #expect(payload["price"]?.value as? Int == 490, "\(result)")
    }

    @Test("the notification types and subtypes the store records are the library's, no more and no fewer")
    func notificationCodesAreApples() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle` (make test does)")
        let sandbox = try Sandbox()
        let listed = try await Sandbox.launch(Self.python, arguments: ["-c", """
            from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
            from appstoreserverlibrary.models.Subtype import Subtype
            print(" ".join(sorted(t.value for t in NotificationTypeV2)))
            print(" ".join(sorted(t.value for t in Subtype)))
            """], environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        let lines = listed.stdout.split(separator: "\n").map { Set($0.split(separator: " ").map(String.init)) }
        try #require(lines.count == 2, "\(listed)")
        #expect(Set(NotificationType.allCases.map(\.rawValue)) == lines[0])
        #expect(Set(NotificationSubtype.allCases.map(\.rawValue)) == lines[1])
    }

    @Test("the payloads' and requests' other codes are the library's: product type, ownership, revocation type, offer discount type, delivery status, refund preference")
    func payloadCodesAreApples() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle` (make test does)")
        let sandbox = try Sandbox()
        let names = ["Type", "InAppOwnershipType", "RevocationType", "OfferDiscountType", "DeliveryStatus", "RefundPreference"]
        let listed = try await Sandbox.launch(Self.python, arguments: ["-c", names.map { name in
            "from appstoreserverlibrary.models.\(name) import \(name)\nprint(\"|\".join(sorted(t.value for t in \(name))))"
        }.joined(separator: "\n")], environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        let lines = listed.stdout.split(separator: "\n").map { Set($0.split(separator: "|").map(String.init)) }
        try #require(lines.count == names.count, "\(listed)")
        let apple = Dictionary(uniqueKeysWithValues: zip(names, lines))
        #expect(Set(ProductType.allCases.map(\.appStoreName)) == apple["Type"])
        #expect(Set(Transaction.OwnershipType.allCases.map(\.appStoreName)) == apple["InAppOwnershipType"])
        #expect(Set(Transaction.RevocationType.allCases.map(\.rawValue)) == apple["RevocationType"])
        // ONE_TIME is a one-time product's offer, which the catalog's offers (subscriptions') never are.
        #expect(Set(PaymentMode.allCases.map(\.offerDiscountType)).union(["ONE_TIME"]) == apple["OfferDiscountType"])
        #expect(Set(DeliveryStatus.allCases.map(\.rawValue)) == apple["DeliveryStatus"])
        #expect(Set(RefundPreference.allCases.map(\.rawValue)) == apple["RefundPreference"])
    }

    @Test("openssl: the x5c chain verifies strictly against the exported PEM root; leaf and intermediate carry Apple's markers")
    func opensslChain() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        let rootPEM = try await sandbox.storefront("key", "export", "--root")
        rootPEM.expect(exit: 0)
        #expect(rootPEM.stdout.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let root = try sandbox.write("root.pem", rootPEM.stdout)
        let jws = try #require(((try await sandbox.storefront("transactions", "--json").jsonObject())["transactions"]
            as? [[String: Any]])?.first?["jwsRepresentation"] as? String)
        let headerPart = String(try #require(jws.split(separator: ".").first))
        var base64 = headerPart.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let headerBytes = try #require(Data(base64Encoded: base64))
        let header = try #require(try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        let x5c = try #require(header["x5c"] as? [String])
        #expect(x5c.count == 3)
        var files: [String] = []
        for (index, entry) in x5c.enumerated() {
            let der = try #require(Data(base64Encoded: entry))
            files.append(try sandbox.write("cert\(index).der", der))
        }
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        func run(_ arguments: [String]) async throws -> RunResult {
            try await Sandbox.launch(openssl, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        }
        var pems: [String] = []
        for file in files {
            let converted = try await run(["x509", "-inform", "DER", "-in", file, "-out", file + ".pem"])
            #expect(converted.status == 0, "\(converted)")
            pems.append(file + ".pem")
        }
        let verified = try await run(["verify", "-x509_strict", "-CAfile", root, "-untrusted", pems[1], pems[0]])
        #expect(verified.status == 0 && verified.stdout.contains("OK"), "\(verified)")
        let leaf = try await run(["x509", "-in", pems[0], "-noout", "-text"])
        #expect(leaf.stdout.contains("1.2.840.113635.100.6.11.1"))
        let intermediate = try await run(["x509", "-in", pems[1], "-noout", "-text"])
        #expect(intermediate.stdout.contains("1.2.840.113635.100.6.2.1"))
        // The root in x5c is the exported one; another store's root does not verify the chain.
        let rootFromHeader = try await run(["x509", "-in", pems[2], "-noout", "-fingerprint", "-sha256"])
        let exportedRoot = try await run(["x509", "-in", root, "-noout", "-fingerprint", "-sha256"])
        #expect(rootFromHeader.stdout == exportedRoot.stdout)
        let other = try Sandbox()
        let otherRoot = try sandbox.write("other.pem", try await other.storefront("key", "export", "--root").stdout)
        let refused = try await run(["verify", "-x509_strict", "-CAfile", otherRoot, "-untrusted", pems[1], pems[0]])
        #expect(refused.status != 0)
    }
}
