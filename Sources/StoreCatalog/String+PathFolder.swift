extension String {
    /// The folder part of a path, as `NSString.deletingLastPathComponent` gives it (`a/b` → `a`,
    /// `/b` → `/`, `b` → empty), without its crash: Foundation on Linux traps (SIGILL) on a path of
    /// one character and no slash (`q`, `-`), which a store path may well be.
    package var pathFolder: String {
        var path = Substring(self)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        var folder = path[..<slash]
        while folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder.isEmpty ? "/" : String(folder)
    }
}
