// swift-tools-version:6.0
import Foundation
import PackageDescription

// The root package's identity is its folder's name, whatever the checkout is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "StorefrontExamples",
    dependencies: [.package(path: "..")],
    targets: [
        /// The seed's `Store` class, unchanged but for its imports (Swift 5 mode, as the app it came from).
        /// Its warnings are not ours to fix: its `default:` after every `PurchaseResult` case is
        /// right for Apple's StoreKit (a resilient module) and "never executed" against ours.
        .target(name: "SeedStore", dependencies: [.product(name: "StorefrontKit", package: root)],
                swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-suppress-warnings"])]),
        /// A small shop on the seed's pattern, in Swift 6: products, purchase, updates, restore.
        .target(name: "Shop", dependencies: [.product(name: "StorefrontKit", package: root)]),
        /// `shop-cli products | buy ID | restore | listen`, on the catalog and store file StorefrontKit finds.
        .executableTarget(name: "shop-cli", dependencies: ["Shop"]),
        /// The RazeFaces tutorial's StoreKit 1 `IAPHelper` (Swift 5, as the tutorial), with `import StoreKit` made `import StorefrontKit`.
        .target(name: "RazeFaces", dependencies: [.product(name: "StorefrontKit", package: root)],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        /// `razefaces products | buy ID | restore | listen`: the IAPHelper on the main run loop (`dispatchMain()`).
        .executableTarget(name: "razefaces-cli", dependencies: ["RazeFaces"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "ShopTests", dependencies: [
            "Shop", "SeedStore", "RazeFaces", "razefaces-cli",
            .product(name: "StorefrontKit", package: root),
            .product(name: "StorefrontKitTest", package: root),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
