import Glibc
import StoreCatalog

/// One fuzz input: any bytes as a catalog file. A bad catalog must be an error,
/// never a crash or a hang; a good one must price every product in every
/// storefront and convert to a products.json that reads back as a catalog.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCatalog(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let catalog = try? Catalog.parse(bytes, file: "fuzz.json") else { return 0 }
    for storefront in catalog.storefronts {
        for product in catalog.products(in: storefront) { _ = product.displayPrice }
    }
    let converted = catalog.productsJSON().document.serialized()
    do {
        _ = try Catalog.parse(Array(converted.utf8), file: "converted.json")
    } catch {
        fatalError("catalog convert wrote a products.json that does not load: \(error)\n\(converted)")
    }
    return 0
}

// libFuzzer's driver, called from the executable's own entry point (SwiftPM
// renames an executable's `main`, so libFuzzer's `main` cannot be used as is).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, fuzzCatalog))
