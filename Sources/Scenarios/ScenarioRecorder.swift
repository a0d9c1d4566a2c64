import Foundation
import StoreEngine
import StorefrontUI

/// `storefront --record FILE`: writes what the tester does in the paywall as scenario
/// steps, each result as an `expect`, and the commands other processes run against the
/// same store meanwhile (seen in the store's settings, clock and history) as CLI steps.
/// `=` adds expectations for the selected row. Lines are written as they happen.
public final class ScenarioRecorder: Sendable {
    private let continuation: AsyncStream<(Action, State)>.Continuation
    private let task: Task<Void, Never>

    /// The key that adds an expectation for the selected row (the paywall ignores it).
    public static let expectKey = Key.character("=")

    public init(path: String, store: Store, catalogPath: String, size: Size) async throws {
        let worker = try await RecorderWorker(path: path, store: store, catalogPath: catalogPath, size: size)
        let (stream, continuation) = AsyncStream<(Action, State)>.makeStream()
        self.continuation = continuation
        task = Task {
            for await (action, state) in stream { await worker.observe(action, state) }
            // What other processes did since the paywall last looked.
            try? await worker.look(report: true)
            worker.finish()
        }
    }

    /// Called by the paywall's loop after each action, with the state it left.
    public func observe(_ action: Action, _ state: State) {
        continuation.yield((action, state))
    }

    /// Writes what is still pending and closes the file.
    public func finish() async {
        continuation.finish()
        await task.value
    }
}

/// The recorder's bookkeeping, used by its one task only.
private final class RecorderWorker: @unchecked Sendable {
    let file: FileHandle
    let store: Store
    var keys: [String] = []
    var pendingSelect: String?
    var awaitingResult = false
    var dataVersion: Int64?
    /// What the store held when last looked at: settings, transactions, the clock's lead on real time.
    var settings: [String: String] = [:]
    var transactions: [Int64: Transaction] = [:]
    var clockLead: TimeInterval = 0

    init(path: String, store: Store, catalogPath: String, size: Size) async throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        self.file = file
        self.store = store
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        let catalog = URL(fileURLWithPath: catalogPath).standardizedFileURL.path
        let relative = catalog.hasPrefix(folder + "/") ? String(catalog.dropFirst(folder.count + 1)) : catalog
        let now = try await store.testSession.clock().now
        write("# Recorded with storefront --record on the store \(store.path);")
        write("# replay starts from an empty store at the same time: history made before the recording is not in it.")
        write("catalog \(Self.quoted(relative))")
        write("start \(now.formatted(Date.ISO8601FormatStyle()))")
        write("size \(size.columns)x\(size.rows)")
        write("")
        try await look(report: false)
    }

    func observe(_ action: Action, _ state: State) async {
        switch action {
        case .key(let key):
            await pressed(key, state)
        case .paywall(.purchased), .paywall(.restored), .paywall(.restoreFailed), .paywall(.consumed), .paywall(.consumeFailed),
             .commandFinished, .accountChanged, .sheet(.redeemed):
            guard state.busy == nil else { return }
            try? await look(report: false)   // the paywall's own doing: known, not another process's
            if awaitingResult { expectResult(state) }
        case .dataVersion(let version):
            if let known = dataVersion, known != version { try? await look(report: true) }
            dataVersion = version
        case .loaded(let snapshot):
            dataVersion = snapshot.dataVersion
        default:
            break
        }
    }

    private func pressed(_ key: Key, _ state: State) async {
        if key == ScenarioRecorder.expectKey {
            flushKeys()
            expectSelectedRow(state)
            return
        }
        let moves: [Key] = [.up, .down, .pageUp, .pageDown, .home, .end, .character("j"), .character("k"),
                            .character("g"), .character("G")]
        if state.screen == .paywall, state.sheet == nil, moves.contains(key) {
            flushKeys()
            pendingSelect = state.selectedProduct?.id
            return
        }
        if !state.isRunning { return }   // quitting is not a step
        if let product = pendingSelect {
            write("select \(product)")
            pendingSelect = nil
        }
        keys.append(Scenario.keyName(key))
        awaitingResult = true
    }

    private func flushKeys() {
        guard !keys.isEmpty else { return }
        write("press " + keys.joined(separator: " "))
        keys = []
    }

    /// What the screen said when the tester's action finished: the alert's title, else the status line.
    private func expectResult(_ state: State) {
        awaitingResult = false
        flushKeys()
        if case .alert(let title, _) = state.sheet {
            write("expect screen \(Self.quoted(title))")
        } else if let flash = state.flash, !flash.isEmpty {
            write("expect screen \(Self.quoted(flash))")
        }
    }

    /// `=`: the selected product's state in the store, and its row as the screen shows it.
    private func expectSelectedRow(_ state: State) {
        guard state.screen == .paywall, let product = state.selectedProduct, let snapshot = state.snapshot else { return }
        if product.type == .consumable {
            write("expect balance \(product.id) \(snapshot.balances[product.id] ?? 0)")
        } else if let group = product.subscription?.subscriptionGroupID, let status = snapshot.subscriptions[group],
                  status.transaction.productID == product.id {
            write("expect status \(group) \(status.state.rawValue)")
        } else {
            write("expect \(snapshot.standing(of: product).isChecked ? "owned" : "not owned") \(product.id)")
        }
        // In UTC, as replay draws: the row reads the same on every machine.
        let lines = render(state, timeZone: TimeZone(identifier: "UTC")!).lines
        if let line = lines.first(where: { $0.contains(product.displayName) && $0.contains(state.glyphs.pointer) }),
           let start = line.range(of: product.displayName) {
            // Its words, one space apart: the replay matches text, not the columns of this width.
            let row = ScenarioRun.spacing(line[start.lowerBound...].replacingOccurrences(of: "[ Buy ]", with: ""))
            write("expect screen \(Self.quoted(row))")
        }
    }

    // MARK: - Other processes

    /// Reads the store and, when `report`, writes what changed as the CLI commands that change it.
    func look(report: Bool) async throws {
        let values = Dictionary(uniqueKeysWithValues: try await store.testSession.settings().map { ($0.name, $0.value) })
        let history = try await store.appStore.transactions(limit: 500)
        let lead = try await store.testSession.clock().now.timeIntervalSinceNow
        defer {
            settings = values
            transactions = Dictionary(uniqueKeysWithValues: history.map { ($0.id, $0) })
            clockLead = lead
        }
        guard report else { return }
        flushKeys()
        for (name, value) in values.sorted(by: { $0.key < $1.key }) where settings[name] != value && name != "clock" {
            write("settings set \(name) \(Self.quoted(value))")
        }
        let advance = lead - clockLead
        if advance >= 60 {
            let days = (advance / 86_400).rounded()
            write("clock advance " + (abs(advance - days * 86_400) < 120 && days >= 1 ? "P\(Int(days))D" : "PT\(Int((advance / 60).rounded()))M"))
        }
        let newest = history.first?.id
        func reference(_ id: Int64) -> String { id == newest ? "LAST" : String(id) }
        for transaction in history.reversed() {
            guard let before = transactions[transaction.id] else {
                if transaction.reason == .purchase, transaction.originalID == transaction.id || transaction.status == .pending {
                    write("buy \(transaction.productID)\(transaction.isFinished || transaction.status == .pending ? "" : " --outside")")
                }
                continue
            }
            if before.status == .pending, transaction.status != .pending {
                let verb = transaction.status == .declined ? "decline" : before.pendingReason == .interrupted ? "resolve" : "approve"
                write("\(verb) \(reference(transaction.id))")
            }
            if before.revocationDate == nil, let reason = transaction.revocationReason {
                write("refund \(reference(transaction.id)) --reason \(reason.rawValue)")
            }
        }
        for id in transactions.keys.sorted() where !history.contains(where: { $0.id == id }) && id >= (history.last?.id ?? 0) {
            write("delete-transaction \(id)")
        }
    }

    // MARK: - Writing

    func write(_ line: String) {
        file.write(Data((line + "\n").utf8))
    }

    func finish() {
        flushKeys()
        try? file.close()
    }

    /// A word as a scenario reads it back: bare when it can be, else double-quoted.
    static func quoted(_ text: String) -> String {
        if !text.isEmpty, text.allSatisfy({ !$0.isWhitespace && $0 != "\"" && $0 != "'" && $0 != "#" && $0 != "\\" }) { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
