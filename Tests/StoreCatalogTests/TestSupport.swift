import Foundation
// Every file of the test target sees TestSupport (dates, folders, the fixture catalog's text).
@_exported import TestSupport
@testable import StoreCatalog

func fixtureCatalog() throws -> Catalog {
    try Catalog.parse(Array(fixtureCatalogText.utf8), file: "fixture.json")
}

/// A decimal from text, never through a binary floating-point literal.
func decimal(_ text: String) -> Decimal {
    Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
}
