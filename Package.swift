// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Storefront",
    products: [
        .executable(name: "storefront", targets: ["storefront"]),
        .library(name: "StoreEngine", targets: ["StoreEngine"]),
        .library(name: "StorefrontKit", targets: ["StorefrontKit"]),
        .library(name: "StorefrontKitTest", targets: ["StorefrontKitTest"]),
        .library(name: "CombineStandIn", targets: ["CombineStandIn"]),
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
        /// libpq (libpq-dev's header) for the ledger's PostgreSQL backend, loaded with dlopen when
        /// the first connection opens: linked, it and its ~20 libraries cost every process ~4.5 ms of CPU at start.
        .target(name: "CLibPQ"),
        /// libcrypto started before main without its exit-time clean-up, which freed OpenSSL's
        /// tables under threads still signing as a process exited.
        .target(name: "COpenSSLExit", linkerSettings: [.linkedLibrary("crypto")]),
        /// glibc's malloc settings the executable makes at start (one arena: docs/performance.md, memory).
        .target(name: "CMalloc"),

        // MARK: - Layers
        /// The catalog: the JSON reader, products.json and `.storekit` readers, catalog values,
        /// money and storefronts. No SQLite, no OpenSSL.
        .target(name: "StoreCatalog"),
        /// Keys, the store's certificate authority, JWS and the seals' HMAC: the only target on libcrypto.
        .target(name: "StoreSigning", dependencies: ["StoreCatalog", "COpenSSL", "COpenSSLExit"]),
        /// The store: a SQLite file or PostgreSQL, every SQL statement, schema and migrations, and
        /// the records the ledger keeps. The only target on SQLite and on libpq.
        .target(name: "StoreLedger", dependencies: ["StoreCatalog", "StoreSigning", "CSQLite", "CLibPQ"]),
        /// The store actor, its rules and its three faces; re-exports the targets below it.
        /// No terminal code.
        .target(name: "StoreEngine", dependencies: ["StoreCatalog", "StoreSigning", "StoreLedger"]),
        /// The terminal core: a cell canvas, styles, keys, the terminal protocol, text sanitising. No ncurses, no engine.
        .target(name: "TerminalCore"),
        /// StoreKit 2's API (Product, Transaction, AppStore, …) on the engine's app face.
        .target(name: "StorefrontKit", dependencies: ["StoreEngine"]),
        /// SKTestSession on the engine's test-session and App Store faces.
        .target(name: "StorefrontKitTest", dependencies: ["StorefrontKit", "StoreEngine"]),
        /// A stand-in for Apple's Combine on Linux (ObservableObject, @Published, objectWillChange, sink),
        /// so a store class compiles with its imports changed. Not StoreKit, not part of StorefrontKit.
        .target(name: "CombineStandIn"),
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
        .executableTarget(name: "storefront", dependencies: ["StorefrontCLI", "Scenarios", "CursesBackend", "CMalloc"]),
        /// What the test targets, the stress suite and the bench share: a clock the test moves,
        /// temporary folders, the built binaries and child processes, tmux sessions. No Testing:
        /// the stress suite and the bench are executables.
        .target(name: "TestSupport"),
        /// `make stress`: the parts of docs/reliability.md's table (main.swift lists them).
        .executableTarget(name: "storefront-stress", dependencies: ["StoreEngine", "StorefrontCLI", "StorefrontServer", "StorefrontUI",
                                                                  "StorefrontKit", "TestSupport"]),
        /// `make bench`: the measurements of docs/performance.md.
        .executableTarget(name: "storefront-bench", dependencies: ["StoreEngine", "StorefrontUI", "StorefrontServer", "StorefrontKit",
                                                                  "StorefrontKitTest", "TestSupport"]),

        // MARK: - Tests
        .testTarget(name: "StoreCatalogTests", dependencies: ["StoreCatalog", "TestSupport"]),
        .testTarget(name: "StoreSigningTests", dependencies: ["StoreSigning", "TestSupport"]),
        .testTarget(name: "StoreLedgerTests", dependencies: ["StoreLedger", "TestSupport"]),
        .testTarget(name: "StoreEngineTests", dependencies: ["StoreEngine", "TestSupport"]),
        // The golden screens are read through #filePath, not bundled.
        .testTarget(name: "StorefrontUITests", dependencies: ["StorefrontUI", "CursesBackend", "TestSupport"], exclude: ["Goldens"]),
        .testTarget(name: "StorefrontKitTests", dependencies: ["StorefrontKit", "StorefrontKitTest", "storefront", "TestSupport"]),
        /// StoreKit 2 app code per area, compiled as Apple's documentation writes it, and each declaration's behaviour.
        .testTarget(name: "StoreKitCompatibilityTests", dependencies: ["StorefrontKit", "StorefrontKitTest", "StoreEngine", "TestSupport"]),
        /// StoreKit code as libraries write it and their tests: mock subclasses of StoreKit 1's classes, errors
        /// built from NSError, a queue observer with downloads, format styles set property by property.
        .testTarget(name: "StoreKitLibraryShapesTests", dependencies: ["StorefrontKit", "StorefrontKitTest", "StoreEngine", "TestSupport"]),
        /// CombineStandIn on its own, and a StoreKit store class written as an `ObservableObject`.
        .testTarget(name: "CombineStandInTests", dependencies: ["CombineStandIn", "StorefrontKit", "StorefrontKitTest", "TestSupport"]),
        .testTarget(name: "ScenariosTests", dependencies: ["Scenarios", "StorefrontCLI", "TestSupport"]),
        .testTarget(
            name: "StorefrontCLITests",
            // StorefrontKit and StorefrontUI too: the Parity suite asks every front end.
            dependencies: ["StorefrontCLI", "Scenarios", "StorefrontKit", "StorefrontUI", "storefront", "TestSupport"]
        ),
        /// The server's API in process: a request routed, the answer read, no socket.
        .testTarget(name: "StorefrontServerTests", dependencies: ["StorefrontServer", "StoreEngine", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
