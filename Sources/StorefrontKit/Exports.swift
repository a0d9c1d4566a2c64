// `import StoreKit` brings Foundation with it (`Date`, `UUID`, `Decimal`, `UserDefaults`):
// so does `import StorefrontKit`, so an app's files need no second import.
@_exported import Foundation
