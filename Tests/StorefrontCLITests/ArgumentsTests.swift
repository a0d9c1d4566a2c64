import StoreEngine
@testable import StorefrontCLI
import Testing

/// `Invocation.parse`, in-process: the command-line contract scripts rely on.
@Suite("Argument parsing")
struct ArgumentsTests {
    /// Parses the arguments; a usage error is thrown and fails the test.
    func parse(_ arguments: String...) throws -> Invocation {
        try Invocation.parse(arguments)
    }

    /// The usage error `arguments` must give.
    func usageError(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) -> UsageError? {
        expectUsageError(arguments, sourceLocation: sourceLocation)
    }

    // MARK: - Commands and operands

    @Test func noCommandOpensThePaywallWithDefaults() throws {
        let invocation = try parse()
        #expect(invocation.command == .paywall)
        #expect(invocation.catalogPath == "products.json")
        #expect(invocation.storePath == nil)
        #expect(invocation.account == nil, "the store file's current account, else tester@local")
        #expect(invocation.json == false)
        #expect(invocation.latency == nil)
    }

    @Test func optionsAloneStillOpenThePaywall() throws {
        let invocation = try parse("--catalog", "x.json", "--account", "qa", "--latency", "0")
        #expect(invocation.command == .paywall)
        #expect(invocation.catalogPath == "x.json")
        #expect(invocation.account == "qa")
        #expect(invocation.latency == 0)
    }

    @Test(arguments: [
        ("products", Command.run(AnyCommand(ProductsCommand()))),
        ("restore", .run(AnyCommand(RestoreCommand()))),
        ("transactions", .run(AnyCommand(TransactionsCommand(pending: false)))),
        ("entitlements", .run(AnyCommand(EntitlementsCommand()))),
        ("settings", .run(AnyCommand(SettingsCommand.list))),
    ])
    func commandsWithoutOperands(name: String, command: Command) throws {
        #expect(try parse(name).command == command)
        #expect(try parse(name, "--json").json)
        // Each of them refuses an operand, naming the command for its usage line.
        let error = usageError(name, "extra")
        #expect(error?.command == name)
        #expect(error?.description.hasPrefix(name) == true)
    }

    @Test func buyAndConsumeTakeOneProductID() throws {
        #expect(try parse("buy", "com.example.a").command == .run(AnyCommand(BuyCommand(productID: "com.example.a", quantity: 1))))
        #expect(try parse("consume", "coins").command == .run(AnyCommand(ConsumeCommand(productID: "coins", quantity: 1))))
        #expect(try parse("buy", "coins", "--quantity", "3").command == .run(AnyCommand(BuyCommand(productID: "coins", quantity: 3))))
        #expect(try parse("consume", "-q", "10", "coins").command == .run(AnyCommand(ConsumeCommand(productID: "coins", quantity: 10))))
    }

    @Test func buyWithoutProductIDIsAUsageError() {
        let error = usageError("buy")
        #expect(error?.command == "buy")
        #expect(error?.description.contains("PRODUCT_ID") == true)
        #expect(usageError("consume")?.command == "consume")
    }

    @Test func buyWithTwoProductIDsIsAUsageError() {
        let error = usageError("buy", "a", "b")
        #expect(error?.command == "buy")
        #expect(error?.description.contains("a b") == true)
    }

    @Test func operandsAfterDoubleDashAreOperandsEvenWithADash() throws {
        #expect(try parse("buy", "--", "-odd-id").command == .run(AnyCommand(BuyCommand(productID: "-odd-id", quantity: 1))))
        #expect(try parse("--json", "consume", "--", "--json").command == .run(AnyCommand(ConsumeCommand(productID: "--json", quantity: 1))))
    }

    @Test func quantityIsOnlyForBuyAndConsume() {
        for command in ["products", "restore", "transactions", "entitlements", "settings", "log"] {
            let error = usageError(command, "--quantity", "2")
            #expect(error?.description.contains("--quantity") == true, "\(command)")
        }
        #expect(usageError("reset", "app", "-q", "2")?.description.contains("--quantity") == true)
    }

    @Test(arguments: ["0", "-1", "x", "1.5", "", " 2"])
    func badQuantitiesAreUsageErrors(value: String) {
        let separate = usageError("buy", "coins", "--quantity", value)
        #expect(separate?.description.contains("--quantity") == true)
        #expect(separate?.command == "buy")
        let inline = usageError("buy", "coins", "--quantity=\(value)")
        #expect(inline?.description.contains("--quantity") == true)
    }

    @Test func quantityWithoutAValueIsAUsageError() {
        #expect(usageError("buy", "coins", "--quantity")?.description.contains("needs a value") == true)
    }

    @Test func logTakesALimit() throws {
        #expect(try parse("log").command == .run(AnyCommand(LogCommand(limit: 50))))
        #expect(try parse("log", "-n", "5").command == .run(AnyCommand(LogCommand(limit: 5))))
        #expect(try parse("log", "--limit=7").command == .run(AnyCommand(LogCommand(limit: 7))))
        #expect(usageError("log", "--limit", "0") != nil)
        #expect(usageError("buy", "x", "--limit", "3")?.description.contains("--limit") == true)
    }

    // MARK: - reset and settings

    @Test(arguments: ResetScope.allCases)
    func resetScopes(scope: ResetScope) throws {
        #expect(try parse("reset", scope.rawValue).command == .run(AnyCommand(ResetCommand(scope: scope))))
    }

    @Test func resetNeedsAKnownScope() {
        #expect(usageError("reset")?.command == "reset")
        let unknown = usageError("reset", "everything")
        #expect(unknown?.description.contains("everything") == true)
        #expect(unknown?.description.contains("app, account or all") == true)
        #expect(usageError("reset", "app", "account") != nil)
    }

    @Test func settingsSetTakesANameAndAValue() throws {
        #expect(try parse("settings", "set", "canMakePayments", "false").command
                == .run(AnyCommand(SettingsCommand.set(name: "canMakePayments", value: "false"))))
        #expect(try parse("--json", "settings", "set", "storefront", "DEU").command
                == .run(AnyCommand(SettingsCommand.set(name: "storefront", value: "DEU"))))
    }

    @Test func settingsWithTheWrongOperandsIsAUsageError() {
        #expect(usageError("settings", "set", "canMakePayments")?.command == "settings")
        #expect(usageError("settings", "set") != nil)
        #expect(usageError("settings", "get", "a", "b") != nil)
        #expect(usageError("settings", "set", "a", "b", "c") != nil)
    }

    // MARK: - Options

    @Test func optionsBeforeAndAfterTheCommandMeanTheSame() throws {
        let before = try parse("--catalog", "c.json", "--store", "s.sqlite", "--account", "qa", "--json", "buy", "p")
        let after = try parse("buy", "p", "--catalog", "c.json", "--store", "s.sqlite", "--account", "qa", "--json")
        let mixed = try parse("-c", "c.json", "buy", "-s", "s.sqlite", "p", "-a", "qa", "--json")
        for invocation in [before, after, mixed] {
            #expect(invocation.catalogPath == "c.json")
            #expect(invocation.storePath == "s.sqlite")
            #expect(invocation.account == "qa")
            #expect(invocation.json)
            #expect(invocation.command == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1))))
        }
    }

    @Test func optionsTakeInlineValues() throws {
        let invocation = try parse("--catalog=a=b.json", "--store=/tmp/x y.sqlite", "--account=qa@x", "--latency=5",
                                   "buy", "coins", "--quantity=4")
        #expect(invocation.catalogPath == "a=b.json")  // only the first "=" splits
        #expect(invocation.storePath == "/tmp/x y.sqlite")
        #expect(invocation.account == "qa@x")
        #expect(invocation.latency == 5)
        #expect(invocation.command == .run(AnyCommand(BuyCommand(productID: "coins", quantity: 4))))
    }

    @Test func anEmptyInlineValueIsNotTheNextArgument() {
        // `--store= buy x` must not take "buy" as the store path.
        #expect(usageError("--store=", "buy", "x")?.description.contains("--store") == true)
        #expect(usageError("--catalog=", "products")?.description.contains("--catalog") == true)
        #expect(usageError("--account=", "products")?.description.contains("--account") == true)
        #expect(usageError("buy", "coins", "--quantity=") != nil)
    }

    @Test func emptyPathsAreUsageErrors() {
        // An empty store path would open a throw-away temporary database and lose the purchase.
        #expect(usageError("--store", "", "buy", "x")?.description.contains("--store") == true)
        #expect(usageError("--catalog", "", "products")?.description.contains("--catalog") == true)
        #expect(usageError("--account", "", "products")?.description.contains("--account") == true)
    }

    @Test func flagsTakeNoValue() {
        // `--json=false` must not quietly print JSON.
        #expect(usageError("products", "--json=false")?.description.contains("--json") == true)
        #expect(usageError("buy", "--help=yes")?.description.contains("--help") == true)
    }

    @Test func optionWithoutValueIsAUsageError() {
        for option in ["--catalog", "--store", "--account", "--latency", "-c", "-s", "-a"] {
            let error = usageError("products", option)
            #expect(error?.description.contains(option) == true, "\(option)")
            #expect(error?.description.contains("needs a value") == true, "\(option)")
        }
    }

    @Test func unknownOptionIsAUsageError() {
        let error = usageError("products", "--colour")
        #expect(error?.description.contains("--colour") == true)
        #expect(error?.command == "products")
        #expect(usageError("-x")?.description.contains("-x") == true)
    }

    @Test func unknownCommandIsAUsageError() {
        let error = usageError("purchase", "coins")
        #expect(error?.description.contains("purchase") == true)
        #expect(error?.command == nil)
    }

    @Test func latencyMayBeZeroButNotNegative() throws {
        #expect(try parse("--latency", "0").latency == 0)
        #expect(usageError("--latency", "-5") != nil)
        #expect(usageError("--latency", "fast") != nil)
    }

    @Test func aLoneDashIsAnOperand() {
        // "-" is an operand, not an option: here an unknown command, not an unknown option.
        #expect(usageError("-")?.description.contains("no command") == true)
    }

    // MARK: - Help and version

    @Test func helpOnEverything() throws {
        #expect(try parse("--help").command == .run(AnyCommand(HelpCommand())))
        #expect(try parse("-h").command == .run(AnyCommand(HelpCommand())))
        #expect(try parse("help").command == .run(AnyCommand(HelpCommand())))
        #expect(try parse("--store", "x", "--help").command == .run(AnyCommand(HelpCommand())))
    }

    @Test(arguments: ["products", "buy", "restore", "transactions", "entitlements", "consume", "reset", "settings", "log"])
    func helpOnOneCommand(name: String) throws {
        #expect(try parse(name, "--help").command == .run(AnyCommand(HelpCommand(topic: name))))
        #expect(try parse("--help", name).command == .run(AnyCommand(HelpCommand(topic: name))))
        #expect(try parse("help", name).command == .run(AnyCommand(HelpCommand(topic: name))))
    }

    @Test func helpIgnoresTheCommandsOwnOperandRules() throws {
        // `buy --help` needs no PRODUCT_ID; a bad one does not hide the help.
        #expect(try parse("buy", "-h").command == .run(AnyCommand(HelpCommand(topic: "buy"))))
        #expect(try parse("reset", "bogus", "--help").command == .run(AnyCommand(HelpCommand(topic: "reset"))))
    }

    @Test func helpOnAnUnknownCommandIsAUsageError() {
        #expect(usageError("help", "purchase")?.description.contains("purchase") == true)
        #expect(usageError("purchase", "--help")?.description.contains("purchase") == true)
    }

    @Test func version() throws {
        #expect(try parse("--version").command == .version)
        #expect(try parse("--json", "--version").command == .version)
    }
}
