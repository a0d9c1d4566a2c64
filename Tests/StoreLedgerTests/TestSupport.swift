import Foundation

// A copy of the few helpers of Tests/StoreEngineTests/TestSupport.swift these tests use,
// until one TestSupport target serves every test target.

// MARK: - Temporary folders and files

/// Runs `body` with a fresh, empty folder of its own, removed afterwards.
func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("StoreLedgerTests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try await body(folder)
}

/// The bytes of a file, for before/after comparisons.
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The names in a folder, sorted.
func folderContents(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}

// MARK: - Catalogs

/// The bundled demo catalog at the package root.
let bundledCatalogPath: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // StoreLedgerTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("products.json").path
