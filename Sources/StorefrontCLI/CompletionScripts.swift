import Foundation
import StoreEngine

// MARK: - zsh and fish
//
// The same walk of the line as the bash script: skip options and their values,
// take the first operand as the command, count the operands after it, and offer
// what the table says that operand is.

extension Completions {
    // MARK: - zsh

    static var zsh: String {
        var arms: [String] = [":0) local -a commands; commands=(\(zshDescribed(commands.map { ($0.name, $0.summary) }))); _describe -t commands command commands ;;"]
        for command in commands {
            for (position, kind) in command.operands.enumerated() {
                guard let action = zshAction(kind, position: position) else { continue }
                arms.append("\(command.name):\(position)) \(action) ;;")
            }
        }
        let described = { (options: [OptionSpec]) in
            zshDescribed(options.flatMap { option in option.names.map { ($0, option.summary) } })
        }
        let optionArms = commands.filter { !$0.options.isEmpty }.map { command in
            "\(command.name)) options+=(\(described(command.allOptions.filter { !$0.global }))) ;;"
        }
        let valueArms = OptionSpec.all.filter { $0.value != nil }.map { option in
            "\(option.names.joined(separator: "|"))) \(zshAction(option.kind, position: 0) ?? ":"); return ;;"
        }
        return """
            #compdef storefront
            # zsh completion for storefront, made by `storefront completions zsh` from its command table.
            # Load it with: source <(storefront completions zsh), or save it as _storefront in $fpath.

            # Asks storefront for candidates that depend on the catalog (the one on the line, if any).
            _storefront_ask() {
                ${words[1]} "${_storefront_catalog[@]}" __complete "$@" 2>/dev/null
            }

            _storefront() {
                local command="" word i
                local -a operands options
                typeset -ga _storefront_catalog
                _storefront_catalog=()
                for ((i = 2; i < CURRENT; i++)); do
                    word=${words[i]}
                    case $word in
                        \(catalogNames.joined(separator: "|")))
                            (( i++ )); _storefront_catalog=(--catalog "${words[i]}") ;;
                        --catalog=*) _storefront_catalog=("$word") ;;
                        \(valueOptionNames.joined(separator: "|")))
                            (( i++ )) ;;
                        -*) ;;
                        *) if [[ -z $command ]]; then command=$word; else operands+=("$word"); fi ;;
                    esac
                done
                local cur=${words[CURRENT]}
                case ${words[CURRENT-1]} in
                    \(valueArms.joined(separator: "\n        "))
                esac
                if [[ $cur == -* ]]; then
                    options=(\(described(OptionSpec.all.filter(\.global))))
                    case $command in
                        \(optionArms.joined(separator: "\n            "))
                    esac
                    _describe -t options option options
                    return
                fi
                case $command:${#operands} in
                    \(arms.joined(separator: "\n        "))
                esac
            }

            if [[ $funcstack[1] == _storefront ]]; then
                _storefront "$@"
            else
                compdef _storefront storefront
            fi
            """
    }

    /// The zsh statement that offers candidates for a kind; nil for free text.
    private static func zshAction(_ kind: ValueKind, position: Int) -> String? {
        if let words = fixedWords(kind) { return "compadd -- \(words.map { quoted($0) }.joined(separator: " "))" }
        if kind == .file { return "_files" }
        guard let (what, operand) = request(kind) else { return nil }
        // zsh arrays count from 1: the operand before this one is operands[position].
        let argument = operand.map { " \"${operands[\(position + 1 + $0)]}\"" } ?? ""
        return "compadd -- ${(f)\"$(_storefront_ask \(what)\(argument))\"}"
    }

    /// `name:description` pairs for `_describe`, each quoted; colons in names escaped.
    private static func zshDescribed(_ pairs: [(String, String)]) -> String {
        pairs.map { quoted($0.0.replacingOccurrences(of: ":", with: "\\:") + ":" + $0.1) }.joined(separator: " ")
    }

    // MARK: - fish

    static var fish: String {
        var lines: [String] = [
            "complete -c storefront -f",
        ]
        for option in OptionSpec.all {
            var line = "complete -c storefront"
            if !option.global {
                let users = commands.filter { $0.optionNames.contains(option.long) }.map(\.name)
                line += " -n " + quoted("__storefront_using " + users.joined(separator: " "), fish: true)
            }
            line += " -l " + option.long.dropFirst(2)
            if let short = option.short { line += " -s " + short.dropFirst() }
            if option.value != nil { line += fishValue(option.kind, position: 0).map { " -x -a \($0)" } ?? (option.kind == .file ? " -r -F" : " -x") }
            lines.append(line + " -d " + quoted(option.summary, fish: true))
        }
        for command in commands {
            lines.append("complete -c storefront -n __storefront_needs_command -a \(command.name) -d \(quoted(command.summary, fish: true))")
            for (position, kind) in command.operands.enumerated() {
                let condition = "-n " + quoted("__storefront_at \(command.name) \(position)", fish: true)
                if kind == .file {
                    lines.append("complete -c storefront \(condition) -F")
                } else if let candidates = fishValue(kind, position: position) {
                    lines.append("complete -c storefront \(condition) -a \(candidates)")
                }
            }
        }
        return """
            # fish completion for storefront, made by `storefront completions fish` from its command table.
            # Load it with: storefront completions fish | source

            # The command and operands on the line so far (options and their values left out).
            function __storefront_words
                set -l tokens (commandline -opc)
                set -e tokens[1]
                set -l skip 0
                for token in $tokens
                    if test $skip -eq 1
                        set skip 0
                        continue
                    end
                    switch $token
                        case \(valueOptionNames.joined(separator: " "))
                            set skip 1
                        case '-*'
                        case '*'
                            echo $token
                    end
                end
            end

            function __storefront_needs_command
                test (count (__storefront_words)) -eq 0
            end

            # Whether the command is one of the arguments.
            function __storefront_using
                set -l words (__storefront_words)
                test (count $words) -gt 0; and contains -- $words[1] $argv
            end

            # Whether the line is at operand POSITION (from 0) of COMMAND.
            function __storefront_at --argument-names command position
                set -l words (__storefront_words)
                test (count $words) -eq (math $position + 1); and test "$words[1]" = $command
            end

            # Asks storefront for candidates that depend on the catalog (the one on the line, if any).
            function __storefront_ask
                set -l tokens (commandline -opc)
                set -l catalog
                set -l i 2
                while test $i -le (count $tokens)
                    switch $tokens[$i]
                        case \(catalogNames.joined(separator: " "))
                            set i (math $i + 1)
                            set catalog --catalog $tokens[$i]
                        case '--catalog=*'
                            set catalog $tokens[$i]
                    end
                    set i (math $i + 1)
                end
                $tokens[1] $catalog __complete $argv 2>/dev/null
            end

            \(lines.joined(separator: "\n"))
            """
    }

    /// The `-a` argument of fish's `complete` for a kind (quoted); nil for free text and files.
    private static func fishValue(_ kind: ValueKind, position: Int) -> String? {
        if let words = fixedWords(kind) { return quoted(words.joined(separator: " "), fish: true) }
        guard let (what, operand) = request(kind) else { return nil }
        // The words list starts with the command: operand k is words[k + 2].
        let argument = operand.map { " (__storefront_words)[\(position + 2 + $0)]" } ?? ""
        return quoted("(__storefront_ask \(what)\(argument))", fish: true)
    }
}
