import CLibPQ
import Foundation

extension PostgreSQLConnection {
    /// `connectionString` without its password, to show (the paywall's title line) or log: the
    /// URI's `user:password@` keeps only `user@`, and a `password=` parameter (in a URI's query or
    /// a `key=value` string) goes; the rest is left as written.
    package static func redacted(_ connectionString: String) -> String {
        guard let scheme = ["postgresql://", "postgres://"].first(where: { connectionString.hasPrefix($0) }) else {
            return keyValuePairs(connectionString).filter { !$0.isPassword }.map(\.text).joined(separator: " ")
        }
        var rest = Substring(connectionString.dropFirst(scheme.count))
        var redacted = scheme
        // libpq's own rule: credentials end at the first "@" met before any "/".
        if let end = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[end] == "@" {
            let user = rest[..<end].prefix { $0 != ":" }
            if !user.isEmpty { redacted += user + "@" }
            rest = rest[rest.index(after: end)...]
        }
        guard let question = rest.firstIndex(of: "?") else { return redacted + rest }
        redacted += rest[..<question]
        let kept = rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .filter { parameter in Self.percentDecoded(parameter.prefix { $0 != "=" }) != "password" }
        return kept.isEmpty ? redacted : redacted + "?" + kept.joined(separator: "&")
    }

    /// The connection string's password in every form a message might echo it: as libpq reads
    /// it (PQconninfoParse), as written (percent-encoded in a URI), and PGPASSWORD's.
    static func secrets(in connectionString: String) -> [String] {
        var found: Set<String> = []
        var message: UnsafeMutablePointer<CChar>?
        if clibpq_available() != 0, let options = PQconninfoParse(connectionString, &message) {
            var option = options
            while let keyword = option.pointee.keyword {
                if String(cString: keyword) == "password", let value = option.pointee.val { found.insert(String(cString: value)) }
                option += 1
            }
            PQconninfoFree(options)
        }
        if let message { PQfreemem(message) }
        if let scheme = ["postgresql://", "postgres://"].first(where: { connectionString.hasPrefix($0) }) {
            let rest = connectionString.dropFirst(scheme.count)
            if let end = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[end] == "@",
               let colon = rest[..<end].firstIndex(of: ":") {
                let written = rest[rest.index(after: colon)..<end]
                found.insert(String(written))
                found.insert(percentDecoded(written))
            }
            if let question = rest.firstIndex(of: "?") {
                for parameter in rest[rest.index(after: question)...].split(separator: "&")
                where percentDecoded(parameter.prefix { $0 != "=" }) == "password" {
                    let written = parameter.drop { $0 != "=" }.dropFirst()
                    found.insert(String(written))
                    found.insert(percentDecoded(written))
                }
            }
        } else {
            for pair in keyValuePairs(connectionString) where pair.isPassword { found.insert(pair.value) }
        }
        if let environment = ProcessInfo.processInfo.environment["PGPASSWORD"] { found.insert(environment) }
        found.remove("")
        // Longest first: a password that holds another is taken out whole.
        return found.sorted { $0.count > $1.count }
    }

    /// `message` with every one of `secrets` replaced by `***`.
    static func redact(_ message: String, _ secrets: [String]) -> String {
        secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// `%XX` escapes decoded, as libpq decodes a URI's parts; the text as it is when one is malformed.
    private static func percentDecoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }

    /// A `key=value` pair of a connection string as written (`password = 'it''s'` keeps its
    /// quotes and spaces), its key, and its value unquoted.
    private struct Pair {
        var text: String
        var key: String
        var value: String
        var isPassword: Bool { key == "password" }
    }

    /// The pairs of a `key=value` connection string, as libpq splits them: a value is quoted
    /// with `'` (and `\` escapes inside) or ends at white space.
    private static func keyValuePairs(_ string: String) -> [Pair] {
        let characters = Array(string)
        var pairs: [Pair] = []
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index].isWhitespace { index += 1 } }
        while true {
            skipSpaces()
            guard index < characters.count else { break }
            let start = index
            while index < characters.count, characters[index] != "=", !characters[index].isWhitespace { index += 1 }
            let key = String(characters[start..<index])
            skipSpaces()
            var value = ""
            if index < characters.count, characters[index] == "=" {
                index += 1
                skipSpaces()
                if index < characters.count, characters[index] == "'" {
                    index += 1
                    while index < characters.count, characters[index] != "'" {
                        if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                        value.append(characters[index])
                        index += 1
                    }
                    index = min(index + 1, characters.count)
                } else {
                    while index < characters.count, !characters[index].isWhitespace {
                        if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                        value.append(characters[index])
                        index += 1
                    }
                }
            }
            pairs.append(Pair(text: String(characters[start..<index]), key: key, value: value))
        }
        return pairs
    }
}
