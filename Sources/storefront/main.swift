import Foundation
import StorefrontCLI

// Before anything prints or curses starts: "€" and "✓" need the user's UTF-8 locale.
setlocale(LC_ALL, "")
let code = await CLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                         paywall: runPaywall)
exit(code.rawValue)
