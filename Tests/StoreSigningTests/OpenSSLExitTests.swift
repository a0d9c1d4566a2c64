import COpenSSLExit
import Foundation
import Synchronization
import Testing
@testable import StoreSigning

/// libcrypto at a process's exit (COpenSSLExit): started without OpenSSL's clean-up, so threads
/// still hashing and signing when the process exits use nothing freed under them.
@Suite("OpenSSL at exit")
struct OpenSSLExitTests {
    @Test("libcrypto was started before main without its atexit clean-up")
    func startedWithoutAtexit() {
        #expect(storefront_openssl_started_without_atexit() == 1)
    }

    /// With the clean-up registered, every such process crashed or got a wrong digest (96 of 96, one
    /// at a time; a third of them when 16 ran side by side), as StoreApp's tests did after passing,
    /// about one CI in twenty. One at a time, so that each has the machine's cores.
    @Test("a process exits cleanly while other threads hash", .serialized, arguments: 1...4)
    func exitWhileThreadsWork(_ run: Int) async {
        await #expect(processExitsWith: .success) {
            let started = Atomic(0)
            for _ in 0..<4 {
                Thread.detachNewThread {
                    let seal = Array("a seal".utf8), digest = Digest.sha256(seal)
                    started.add(1, ordering: .relaxed)
                    // Each a fetch from libcrypto's tables; once they are freed, a crash or a wrong digest.
                    while Digest.sha256(seal) == digest {}
                    _exit(3)
                }
            }
            while started.load(ordering: .relaxed) < 4 { usleep(100) }
            usleep(2_000)
            exit(0)
        }
    }
}
