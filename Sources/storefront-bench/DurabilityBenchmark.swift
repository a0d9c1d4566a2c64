import Foundation
import Glibc
import StoreEngine

/// Durable purchases per second against the disk's own limit, both in one folder.
enum DurabilityBenchmark {
    /// Consumable purchases (`Store.purchase`, each committed with synchronous=FULL
    /// before it returns) per second on a fresh store file in `folder`, for about `duration`.
    static func purchasesPerSecond(_ catalog: Catalog, folder: String, duration: Duration,
                                   finish: Bool = false) async throws -> Double {
        let path = folder + "/purchases.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        let store = try Store(catalog: catalog, path: path)
        guard let consumable = catalog.products.first(where: { $0.type == .consumable })?.id else {
            throw PseudoTerminal.Failure(description: "the catalog has no consumable")
        }
        _ = try await store.app.purchase(consumable)  // the first makes the account; not counted
        var count = 0
        let start = ContinuousClock.now
        while ContinuousClock.now - start < duration {
            if finish {
                _ = try await store.app.buy(consumable)
            } else {
                guard case .purchased = try await store.app.purchase(consumable) else {
                    throw PseudoTerminal.Failure(description: "a benchmark purchase did not succeed")
                }
            }
            count += 1
        }
        return Double(count) / (ContinuousClock.now - start).seconds
    }

    /// 256-byte appends each followed by `fdatasync`, per second, on a file in `folder`.
    static func fdatasyncPerSecond(folder: String, duration: Duration) throws -> Double {
        let path = folder + "/fdatasync.bin"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw PseudoTerminal.Failure(description: "cannot create \(path)") }
        defer {
            close(descriptor)
            unlink(path)
        }
        let record = [UInt8](repeating: 0x2A, count: 256)
        var count = 0
        let start = ContinuousClock.now
        while ContinuousClock.now - start < duration {
            guard write(descriptor, record, record.count) == record.count, fdatasync(descriptor) == 0 else {
                throw PseudoTerminal.Failure(description: "write or fdatasync failed: errno \(errno)")
            }
            count += 1
        }
        return Double(count) / (ContinuousClock.now - start).seconds
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
