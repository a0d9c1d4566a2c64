import Foundation
import StoreEngine

/// A shell that `storefront completions` writes a script for.
public enum Shell: String, CaseIterable, Sendable {
    case bash, zsh, fish
}

/// The completion scripts, made from the command table (``CommandHelp/all``, ``OptionSpec/all``).
///
/// Commands, options, fixed words and setting names are written into the script;
/// what depends on the catalog in use (product ids, subscription groups, the
/// storefront setting's values) is asked of `storefront __complete` at completion
/// time, with the `--catalog` already typed on the line.
enum Completions {
    /// The script for `shell`.
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    // MARK: - From the table

    /// The commands a user can complete to.
    static var commands: [CommandHelp] { CommandHelp.visible }

    /// Every spelling of the options that take a value.
    static var valueOptionNames: [String] { OptionSpec.all.filter { $0.value != nil }.flatMap(\.names) }

    /// The `--catalog` option's spellings: the scripts pass it on to `__complete`.
    static var catalogNames: [String] { OptionSpec.named("--catalog")!.names }

    /// The words offered for an operand or option value that is one of a fixed list.
    static func fixedWords(_ kind: ValueKind) -> [String]? {
        switch kind {
        case .words(let words): words
        case .settingName: SettingDefinition.all.map(\.name)
        case .command: commands.map(\.name)
        default: nil
        }
    }

    /// The `__complete` request for a kind that depends on the catalog, with the
    /// index of the operand it needs (the setting name, for a setting's value).
    static func request(_ kind: ValueKind) -> (what: String, operand: Int?)? {
        switch kind {
        case .productID: ("products", nil)
        case .group: ("groups", nil)
        case .settingValue: ("setting-values", -1)
        default: nil
        }
    }

    // MARK: - bash

    private static var bash: String {
        var arms: [String] = [":0) \(bashWords(commands.map(\.name))) ;;"]
        for command in commands {
            for (position, kind) in command.operands.enumerated() {
                guard let action = bashAction(kind, position: position) else { continue }
                arms.append("\(command.name):\(position)) \(action) ;;")
            }
        }
        let optionArms = commands.filter { !$0.options.isEmpty }.map { command in
            "\(command.name)) options+=\" \(command.allOptions.filter { !$0.global }.flatMap(\.names).joined(separator: " "))\" ;;"
        }
        let valueArms = OptionSpec.all.filter { $0.value != nil }.map { option in
            "\(option.names.joined(separator: "|"))) \(bashAction(option.kind, position: 0) ?? ":") ; return ;;"
        }
        let global = OptionSpec.all.filter(\.global).flatMap(\.names).joined(separator: " ")
        return """
            # bash completion for storefront, made by `storefront completions bash` from its command table.
            # Load it with: source <(storefront completions bash)

            # Asks storefront for candidates that depend on the catalog (the one on the line, if any).
            _storefront_ask() {
                "${COMP_WORDS[0]}" "${_storefront_catalog[@]}" __complete "$@" 2>/dev/null
            }

            _storefront() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                local command="" word i
                local -a operands=()
                _storefront_catalog=()
                COMPREPLY=()
                # bash splits --name=value at the "=": join it up again.
                [[ $cur == = ]] && cur=""
                [[ $prev == = ]] && prev=${COMP_WORDS[COMP_CWORD-2]}
                for ((i = 1; i < COMP_CWORD; i++)); do
                    word=${COMP_WORDS[i]}
                    case $word in
                        \(catalogNames.joined(separator: "|")))
                            ((i++)); [[ ${COMP_WORDS[i]} == = ]] && ((i++))
                            _storefront_catalog=(--catalog "${COMP_WORDS[i]}") ;;
                        \(valueOptionNames.joined(separator: "|")))
                            ((i++)); [[ ${COMP_WORDS[i]} == = ]] && ((i++)) ;;
                        -*) ;;
                        *) if [[ -z $command ]]; then command=$word; else operands+=("$word"); fi ;;
                    esac
                done
                case $prev in
                    \(valueArms.joined(separator: "\n        "))
                esac
                if [[ $cur == -* ]]; then
                    local options="\(global)"
                    case $command in
                        \(optionArms.joined(separator: "\n            "))
                    esac
                    COMPREPLY=($(compgen -W "$options" -- "$cur"))
                    return
                fi
                case $command:${#operands[@]} in
                    \(arms.joined(separator: "\n        "))
                esac
            }

            complete -F _storefront storefront
            """
    }

    /// The bash statement that fills COMPREPLY for a kind; nil for free text.
    private static func bashAction(_ kind: ValueKind, position: Int) -> String? {
        if let words = fixedWords(kind) { return bashWords(words) }
        if kind == .file { return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))" }
        guard let (what, operand) = request(kind) else { return nil }
        let argument = operand.map { " \"${operands[\(position + $0)]}\"" } ?? ""
        return "COMPREPLY=($(compgen -W \"$(_storefront_ask \(what)\(argument))\" -- \"$cur\"))"
    }

    private static func bashWords(_ words: [String]) -> String {
        "COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))"
    }

    // MARK: - Quoting

    /// `text` in single quotes for a POSIX shell, zsh or fish.
    static func quoted(_ text: String, fish: Bool = false) -> String {
        if fish { return "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'" }
        return ShellWord.quoted(text)
    }
}
