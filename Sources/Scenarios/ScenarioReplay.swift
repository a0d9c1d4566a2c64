import Foundation
import StoreEngine
import StorefrontUI

/// `storefront replay`'s work without its printing: scenario files loaded with their catalogs,
/// and each run on a fresh temporary store file.
public struct ScenarioReplay: Sendable {
    /// The command line the scenarios' store commands run on.
    public var commands: any ScenarioCommandLine
    /// The paywall's effects (``EngineEffects``, unless a test breaks a rule on purpose).
    public var effects: ScenarioEffects

    public init(commands: any ScenarioCommandLine, effects: @escaping ScenarioEffects = { engine in engine.perform }) {
        self.commands = commands
        self.effects = effects
    }

    /// The scenarios and their catalogs, and the fault of each file that does not load (`file:line:column: fault`).
    public func load(_ paths: [String]) -> (scenarios: [(Scenario, Catalog)], faults: [String]) {
        var loaded: [(Scenario, Catalog)] = []
        var faults: [String] = []
        for path in paths {
            do {
                let scenario = try Scenario.load(path: path, commands: commands)
                do {
                    loaded.append((scenario, try Catalog.load(contentsOf: scenario.catalogPath)))
                } catch {
                    faults.append("\(path):\(scenario.catalogLine):9: the catalog does not load: \(TerminalText.sanitized(error.description))")
                }
            } catch {
                faults.append(TerminalText.sanitized(error.description))
            }
        }
        return (loaded, faults)
    }

    /// Runs one scenario; a temporary store file that cannot be made is its result's setup error.
    public func run(_ scenario: Scenario, catalog: Catalog, keep: Bool) async -> ScenarioResult {
        do {
            let run = try ScenarioRun(scenario: scenario, catalog: catalog, commands: commands, effects: effects)
            return await run.run(keep: keep)
        } catch {
            var failed = ScenarioResult(path: scenario.path, name: scenario.name)
            failed.setupError = "cannot make a temporary store file: \(error)"
            return failed
        }
    }
}
