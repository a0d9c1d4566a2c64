import Foundation
@testable import StorefrontCLI
import Testing

/// The words of usage lines and --help: pending purchases are requests, and every exit code is named.
@Suite("help: request ids and exit codes")
struct HelpWordingTests {
    @Test("approve, decline and resolve take a REQUEST_ID: a pending purchase is a request, not a transaction")
    func requestID() throws {
        for command in ["approve", "decline", "resolve"] {
            let help = try #require(CommandHelp.all.first { $0.name == command })
            #expect(help.usage == "\(command) REQUEST_ID [--json]")
            #expect(expectUsageError([command])?.description.contains("REQUEST_ID") == true)
            #expect(expectUsageError([command, "x"])?.description.contains("request id") == true)
        }
        #expect(expectUsageError(["refund"])?.description.contains("TRANSACTION_ID") == true, "a refund takes a transaction")
    }

    @Test("--help names every exit code, 75 (store file busy) among them")
    func exitCodesInHelp() async throws {
        let sandbox = try Sandbox()
        let help = await JSONErrorTests.run(["--help"], in: sandbox)
        #expect(help.code == .success)
        let codes = help.out.components(separatedBy: "Exit codes:").last ?? ""
        for code in ExitCode.allCases {
            #expect(codes.contains("\(code.rawValue) "), "--help leaves out exit \(code.rawValue)")
        }
        #expect(codes.contains("75 store file busy"))
    }
}
