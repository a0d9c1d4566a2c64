// swift-tools-version:6.0
// The catalog readers under libFuzzer, kept apart from the main package so that
// `swift build` and `make test` never need the fuzzer runtime. The catalog's sources
// are the main package's own, through a symlink (StoreCatalog needs no C library). Built by `make fuzz-build` (run by `make stress`):
//   swift build --package-path Fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
import PackageDescription

let package = Package(
    name: "StorefrontFuzz",
    targets: [
        .target(name: "StoreCatalog"),
        /// products.json and Xcode .storekit files, told apart by content as `--catalog` does.
        .executableTarget(name: "catalog-fuzz", dependencies: ["StoreCatalog"]),
    ],
    swiftLanguageModes: [.v6]
)
