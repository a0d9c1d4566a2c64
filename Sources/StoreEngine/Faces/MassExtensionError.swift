import Foundation

/// Why a mass extension request was refused.
public enum MassExtensionError: Error, Sendable, Equatable {
    /// Not an auto-renewable subscription of the catalog.
    case invalidProductID
}
