import StoreEngine

/// A command line that failed: the lines it writes on standard error, the one JSON shape
/// `--json` prints on standard output (docs/scripting.md's), and the exit code — the same with and without `--json`.
struct CommandFailure: Error {
    /// A StoreKit error's case name (`purchaseNotAllowed`), else what failed (`usage`, `catalogMissing`, …).
    var name: String
    var domain: String?
    var skErrorCode: Int?
    /// What went wrong, as the first line on standard error says it.
    var message: String
    /// The lines on standard error, each written as `storefront: …` or a hint.
    var lines: [String]
    var code: ExitCode
    /// Members a command adds beside `error` (`verify`'s `verification`), so its document stays one.
    var extra: [JSON.Member] = []

    /// `{"error": {"name", "domain", "skErrorCode", "message"}}`, with the command's own members after it.
    var json: JSON {
        .object([CommandFailure.member(name: name, domain: domain, skErrorCode: skErrorCode, message: message)] + extra)
    }

    /// The `error` member of every failure's JSON document; commands whose failure is also a report
    /// (`catalog check`, `doctor`, `replay`) put it beside their own members.
    static func member(name: String, domain: String? = nil, skErrorCode: Int? = nil, message: String) -> JSON.Member {
        JSON.Member("error", .object([
            "name": .string(name),
            "domain": domain.map { .string($0) },
            "skErrorCode": skErrorCode.map { .integer($0) },
            "message": .string(message),
        ]))
    }

    /// Writes the failure (JSON on standard output with `--json`, the lines on standard error) and returns its code.
    func report(json: Bool, console: Console) -> ExitCode {
        if json { console.out(self.json.serialized()) }
        lines.forEach(console.err)
        return code
    }
}

extension ExitCode {
    /// The exit code's name, which a failure without a StoreKit error carries as its `name`.
    var name: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .noTerminal: "noTerminal"
        case .usage: "usage"
        case .badCatalog: "badCatalog"
        case .catalogMissing: "catalogMissing"
        case .storeUnusable: "storeUnusable"
        case .storeBusy: "storeBusy"
        }
    }
}

extension ExitCode {
    /// Reports a failure that comes from outside the command table (the paywall finding no
    /// terminal) as every command's does: `message` on standard error (then `hint`), the one
    /// JSON shape on standard output with `--json`; returns this code.
    public func report(_ message: String, hint: String? = nil, json: Bool, console: Console) -> ExitCode {
        CommandFailure(name: name, message: message, lines: ["storefront: \(message)"] + (hint.map { [$0] } ?? []), code: self)
            .report(json: json, console: console)
    }
}
