// swift-tools-version:6.0
import Foundation
import PackageDescription

// The root package's identity is its folder's name, whatever the checkout is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

/// An app's StoreKit 2 store layer as it is written for Apple platforms (only the imports differ),
/// and its SKTestSession suite in XCTest as Xcode projects write it.
let package = Package(
    name: "StoreApp",
    dependencies: [.package(path: "../..")],
    targets: [
        .target(name: "StoreApp", dependencies: [.product(name: "StorefrontKit", package: root)]),
        .testTarget(name: "StoreAppTests", dependencies: [
            "StoreApp",
            .product(name: "StorefrontKit", package: root),
            .product(name: "StorefrontKitTest", package: root),
        ], resources: [.copy("Products.storekit")]),
    ],
    swiftLanguageModes: [.v6]
)
