// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Storefront",
    products: [
        .executable(name: "storefront", targets: ["storefront"]),
        .library(name: "StoreEngine", targets: ["StoreEngine"]),
        .library(name: "StorefrontKit", targets: ["StorefrontKit"]),
        .library(name: "StorefrontKitTest", targets: ["StorefrontKitTest"]),
    ],
    targets: [
        // MARK: - C libraries from Debian, through small shims
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // No pkgConfig: SwiftPM would warn about the .pc file's -D flags on every
        // build; the shim defines what is needed, and Debian's libncursesw.so pulls in tinfo.
        .systemLibrary(name: "CNcursesw"),
        /// The App Store Server API's HTTP server (libmicrohttpd-dev's header), loaded with
        /// dlopen when serve starts.
        .target(name: "CMicroHTTPD"),

        /// The commit `storefront --version` names, from a header `make` writes.
        .target(name: "CBuildInfo"),
        /// libcurl for serve's notification POSTs, loaded with dlopen when the first is sent.
        .target(name: "CCurl"),

        // MARK: - Layers
        /// The store: catalog, money, ledger (SQLite store file), engine. No terminal code.
        .target(name: "StoreEngine", dependencies: ["CSQLite", "COpenSSL"]),
        /// The terminal core: a cell canvas, styles, keys, the terminal protocol, text sanitising. No ncurses, no engine.
        .target(name: "TerminalCore"),
        /// StoreKit 2's API (Product, Transaction, AppStore, …) on the engine's app face.
        .target(name: "StorefrontKit", dependencies: ["StoreEngine"]),
        /// SKTestSession on the engine's test-session and App Store faces.
        .target(name: "StorefrontKitTest", dependencies: ["StorefrontKit", "StoreEngine"]),
        /// The paywall as values: State, Action, update, render. No ncurses.
        .target(name: "StorefrontUI", dependencies: ["StoreEngine", "TerminalCore"]),
        /// `storefront serve`: the App Store Server API and Server Notifications V2 over HTTP,
        /// on the engine's App Store face. The only target that speaks HTTP.
        .target(name: "StorefrontServer", dependencies: ["StoreEngine", "CMicroHTTPD", "CCurl"]),
        /// The scenario language: the format, the headless runner, its checks and the recorder.
        /// Its store commands run on a command line the CLI gives it (``ScenarioCommandLine``).
        .target(name: "Scenarios", dependencies: ["StoreEngine", "StorefrontUI"]),
        /// Argument parsing and the scriptable subcommands.
        .target(name: "StorefrontCLI", dependencies: ["StoreEngine", "StorefrontUI", "StorefrontServer", "Scenarios", "CBuildInfo"]),
        /// The real terminal: Canvas → ncurses, keys/mouse/resize → events.
        .target(name: "CursesBackend", dependencies: ["TerminalCore", "CNcursesw"]),
        .executableTarget(name: "storefront", dependencies: ["StorefrontCLI", "Scenarios", "CursesBackend"]),
        /// `make stress`: crash, concurrency, damaged-file, fuzz, hostile-text, terminal and tampering parts.
        .executableTarget(name: "storefront-stress", dependencies: ["StoreEngine", "StorefrontCLI", "StorefrontUI"]),
        /// `make bench`: the measurements of the README's Performance section.
        .executableTarget(name: "storefront-bench", dependencies: ["StoreEngine", "StorefrontUI", "StorefrontServer", "StorefrontKit"]),

        // MARK: - Tests
        .testTarget(name: "StoreEngineTests", dependencies: ["StoreEngine"]),
        .testTarget(name: "StorefrontUITests", dependencies: ["StorefrontUI", "CursesBackend"]),
        .testTarget(name: "StorefrontKitTests", dependencies: ["StorefrontKit", "StorefrontKitTest", "storefront"]),
        .testTarget(name: "ScenariosTests", dependencies: ["Scenarios", "StorefrontCLI"]),
        .testTarget(
            name: "StorefrontCLITests",
            dependencies: ["StorefrontCLI", "Scenarios", "storefront"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
