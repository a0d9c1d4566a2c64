import Foundation
import StorefrontCLI

let code = await CLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(code.rawValue)
