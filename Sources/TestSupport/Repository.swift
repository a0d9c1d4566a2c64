import Foundation

/// The package's own files (the bundled catalog, scripts), found from this source file's path.
public enum Repository {
    /// The package root.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()

    /// The bundled demo catalog, products.json.
    public static let catalog = root.appendingPathComponent("products.json").path

    /// A file of the package by its relative path.
    public static func file(_ relativePath: String) -> String {
        root.appendingPathComponent(relativePath).path
    }
}

/// Executables SwiftPM built beside the running one (a test bundle, stress, bench).
public enum BuiltProducts {
    /// `STOREFRONT_BIN`, else the `storefront` executable in the build folder that holds this process.
    public static let storefront: URL? = {
        if let override = ProcessInfo.processInfo.environment["STOREFRONT_BIN"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return executable(named: "storefront")
    }()

    /// The executable `name` in the folder of this process's executable or one above it.
    public static func executable(named name: String) -> URL? {
        var starts = [URL(fileURLWithPath: CommandLine.arguments[0])]
        if let executable = Bundle.main.executableURL { starts.append(executable) }
        starts.append(Bundle.main.bundleURL)
        for start in starts {
            for base in [start, start.resolvingSymlinksInPath()] {
                var folder = base.deletingLastPathComponent()
                while folder.path != "/" {
                    let candidate = folder.appendingPathComponent(name)
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                       !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path) {
                        return candidate
                    }
                    folder = folder.deletingLastPathComponent()
                }
            }
        }
        return nil
    }
}
