import CMalloc
import Foundation
import StorefrontCLI

// Before any thread starts: one malloc arena for all of them (the paywall peaks lower; see CMalloc).
_ = storefront_use_one_malloc_arena()
// Before anything prints or curses starts: "€" and "✓" need the user's UTF-8 locale.
setlocale(LC_ALL, "")
let code = await CLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                         paywall: runPaywall)
exit(code.rawValue)
