import Foundation
import TestSupport

/// Runs the libFuzzer build of the catalog readers (products.json and .storekit,
/// `Fuzz/`) for a bounded time from the seed corpus in `Tests/Fuzz/corpus`: no
/// crash, no hang (a run over the per-input timeout is a failure), no leak of memory.
enum Fuzzing {
    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        guard let fuzzer = context.fuzzer, FileManager.default.isExecutableFile(atPath: fuzzer) else {
            findings.fail("no fuzzer binary (build it with `make fuzz-build`)")
            return (findings, "not run")
        }
        let seconds = context.quick ? 20 : 120
        // New inputs go to a scratch corpus; the seeds in the repository stay as they are.
        let corpus = context.folder("fuzz/corpus")
        let artifacts = context.folder("fuzz/artifacts") + "/"
        let dictionary = (context.corpus as NSString).deletingLastPathComponent + "/catalog.dict"
        let run = Processes.run([fuzzer, corpus, context.corpus, "-dict=\(dictionary)", "-max_total_time=\(seconds)", "-timeout=10",
                                 "-rss_limit_mb=2048", "-max_len=65536", "-print_final_stats=1",
                                 "-artifact_prefix=\(artifacts)"],
                                timeout: Double(seconds) + 120)
        let log = run.stderr.split(separator: "\n")
        /// The word after `label` on the last log line that has it (`cov: 1234`, `Done 5000 runs`).
        func figure(after label: String) -> String {
            guard let line = log.last(where: { $0.contains(label) }) else { return "?" }
            let words = line.split(separator: " ")
            return words.firstIndex { $0 == label }.flatMap { $0 + 1 < words.count ? String(words[$0 + 1]) : nil } ?? "?"
        }
        let seeds = (try? FileManager.default.contentsOfDirectory(atPath: context.corpus).count) ?? 0
        let crashes = (try? FileManager.default.contentsOfDirectory(atPath: artifacts)) ?? []
        findings.check(run.status == 0 && crashes.isEmpty,
                       "the fuzzer found a problem (exit \(run.status)), inputs in \(artifacts): \(crashes); "
                       + log.filter { $0.contains("ERROR") || $0.contains("Fatal") || $0.contains("==") }
                           .prefix(5).joined(separator: " | "))
        let figures = "\(figure(after: "Done")) inputs in \(seconds) s from \(seeds) seeds, "
            + "coverage \(figure(after: "cov:")) edges, \(crashes.count) crashes or hangs"
        return (findings, figures)
    }
}
