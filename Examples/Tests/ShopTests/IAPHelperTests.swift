import Foundation
@preconcurrency import RazeFaces
import StorefrontKit
import StorefrontKitTest
import Testing

/// Fresh defaults for one test: a reinstalled app remembers nothing.
private func freshDefaults() -> UserDefaults {
    let name = "razefaces-tests-\(UUID().uuidString)"
    let defaults = UserDefaults(suiteName: name)!
    defaults.removePersistentDomain(forName: name)
    return defaults
}

/// Waits up to `seconds` for `condition`, asked on the main queue (where the helper's state changes).
private func onMainQueue(within seconds: Double = 20, _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await MainActor.run(body: condition) { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await MainActor.run(body: condition)
}

/// Collects notifications of one name, posted on the main queue.
private final class Posted: @unchecked Sendable {
    private let lock = NSLock()
    private var objects: [Any?] = []
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name) {
        token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
            guard let self else { return }
            self.lock.lock()
            self.objects.append(note.object)
            self.lock.unlock()
        }
    }
    deinit { token.map(NotificationCenter.default.removeObserver) }

    var all: [Any?] {
        lock.lock()
        defer { lock.unlock() }
        return objects
    }
}

/// Loads the helper's products through its completion handler.
private func products(of helper: IAPHelper) async -> [SKProduct]? {
    await withCheckedContinuation { continuation in
        helper.requestProducts { success, products in continuation.resume(returning: success ? products : nil) }
    }
}

extension Examples {
/// The RazeFaces IAPHelper, StoreKit 1 code as the tutorial wrote it, against a test session.
@Suite struct IAPHelperTests {
    @Test func productsLoadWithTheirLocalizedPrices() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        session.storefront = "GBR"
        try await session.run {
            let helper = IAPHelper(productIds: RazeFaceProducts.productIdentifiers, defaults: freshDefaults())
            defer { helper.stopObserving() }
            let loaded = try #require(await products(of: helper))
            #expect(Set(loaded.map(\.productIdentifier)) == RazeFaceProducts.productIdentifiers)
            let shopping = try #require(loaded.first { $0.productIdentifier == RazeFaceProducts.SwiftShopping })
            let formatter = NumberFormatter()
            formatter.numberStyle = .currency
            formatter.locale = shopping.priceLocale
            #expect(formatter.string(from: shopping.price) == "£0.99")
            #expect(IAPHelper.canMakePayments())
        }
    }

    @Test func aPurchaseIsDeliveredRememberedAndFinished() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        try await session.run {
            let defaults = freshDefaults()
            let purchases = Posted(.IAPHelperPurchaseNotification)
            let helper = IAPHelper(productIds: RazeFaceProducts.productIdentifiers, defaults: defaults)
            defer { helper.stopObserving() }
            let shopping = try #require(await products(of: helper)?.first { $0.productIdentifier == RazeFaceProducts.SwiftShopping })
            helper.buyProduct(shopping)
            #expect(await onMainQueue { helper.isProductPurchased(RazeFaceProducts.SwiftShopping) })
            #expect(purchases.all.compactMap { $0 as? String } == [RazeFaceProducts.SwiftShopping])
            #expect(defaults.bool(forKey: RazeFaceProducts.SwiftShopping))
            #expect(await onMainQueue { SKPaymentQueue.default().transactions.isEmpty })
            var unfinished = 0
            for await _ in Transaction.unfinished { unfinished += 1 }
            #expect(unfinished == 0, "the helper finished the transaction")
        }
    }

    @Test func restoreOnAReinstalledAppBringsBackTheRazeFace() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        let bought = try await session.buyProduct(identifier: RazeFaceProducts.NightlyRage)
        await bought.finish()
        await session.run {
            let finished = Posted(.IAPHelperRestoreFinishedNotification)
            let helper = IAPHelper(productIds: RazeFaceProducts.productIdentifiers, defaults: freshDefaults())
            defer { helper.stopObserving() }
            #expect(await MainActor.run { !helper.isProductPurchased(RazeFaceProducts.NightlyRage) })
            helper.restorePurchases()
            #expect(await onMainQueue { finished.all.count == 1 })
            #expect(await MainActor.run { helper.isProductPurchased(RazeFaceProducts.NightlyRage) })
            #expect(await MainActor.run { !helper.isProductPurchased(RazeFaceProducts.SwiftShopping) })
        }
    }

    @Test func aFailedPurchaseCarriesItsSKErrorAndIsNotRemembered() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
        try await session.run {
            let failures = Posted(.IAPHelperPurchaseFailedNotification)
            let helper = IAPHelper(productIds: RazeFaceProducts.productIdentifiers, defaults: freshDefaults())
            defer { helper.stopObserving() }
            let rage = try #require(await products(of: helper)?.first { $0.productIdentifier == RazeFaceProducts.iPhoneRage })
            helper.buyProduct(rage)
            #expect(await onMainQueue { failures.all.count == 1 })
            let failed = try #require(failures.all.first as? SKPaymentTransaction)
            #expect((failed.error as? SKError)?.code == .paymentNotAllowed)
            #expect(await MainActor.run { !helper.isProductPurchased(RazeFaceProducts.iPhoneRage) })
        }
    }

    @Test func askToBuyIsDeferredThenDeliveredWhenTheParentApproves() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        session.askToBuyEnabled = true
        try await session.run {
            let deferred = Posted(.IAPHelperPurchaseDeferredNotification)
            let helper = IAPHelper(productIds: RazeFaceProducts.productIdentifiers, defaults: freshDefaults())
            defer { helper.stopObserving() }
            let shopping = try #require(await products(of: helper)?.first { $0.productIdentifier == RazeFaceProducts.SwiftShopping })
            helper.buyProduct(shopping)
            #expect(await onMainQueue { deferred.all.count == 1 })
            #expect(await MainActor.run { !helper.isProductPurchased(RazeFaceProducts.SwiftShopping) })
            let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
            try session.approveAskToBuyTransaction(identifier: request.identifier)
            #expect(await onMainQueue { helper.isProductPurchased(RazeFaceProducts.SwiftShopping) })
        }
    }

    @Test func theCommandLineProgramBuysOnTheMainRunLoop() async throws {
        let binary = try #require(BuiltExecutable.named("razefaces-cli"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("razefaces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: catalog, to: folder.appendingPathComponent("products.json"))
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_STORE"] = folder.appendingPathComponent("store.sqlite").path
        environment["XDG_CONFIG_HOME"] = nil
        // Its UserDefaults live under HOME: a new HOME is a reinstalled app.
        func run(_ arguments: [String], home: String = "installed") throws -> (status: Int32, output: String) {
            environment["HOME"] = folder.appendingPathComponent(home).path
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            process.currentDirectoryURL = folder
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            // A program that never hears its callbacks would wait for ever: end it after a minute.
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [process] in if process.isRunning { process.terminate() } }
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: output, as: UTF8.self))
        }
        let listed = try run(["products"])
        #expect(listed.status == 0 && listed.output.contains("Swift Shopping\t$0.99"), "\(listed.output)")
        let bought = try run(["buy", RazeFaceProducts.SwiftShopping])
        #expect(bought.status == 0 && bought.output.contains("purchased \(RazeFaceProducts.SwiftShopping)"), "\(bought.output)")
        let restored = try run(["restore"], home: "reinstalled")
        #expect(restored.status == 0 && restored.output.contains("owned: \(RazeFaceProducts.SwiftShopping)"), "\(restored.output)")
        // The receipt the program refreshes is PKCS#7 (DER SEQUENCE) and lists the purchase's product id.
        let receipt = try run(["receipt"])
        let lines = receipt.output.split(separator: "\n").map(String.init)
        #expect(receipt.status == 0 && lines.first?.hasPrefix("receipt ") == true, "\(receipt.output)")
        let der = try #require(lines.last.flatMap { Data(base64Encoded: $0) }, "\(receipt.output)")
        #expect(der.first == 0x30)
        #expect(der.range(of: Data(RazeFaceProducts.SwiftShopping.utf8)) != nil, "the in-app purchase's product id (1702)")
    }
}
}

/// Executables SwiftPM built beside this test bundle.
enum BuiltExecutable {
    static func named(_ name: String) -> URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
