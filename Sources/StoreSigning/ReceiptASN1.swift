import COpenSSL
import Foundation

/// The ASN.1 of app receipts, through libcrypto: attribute SETs (`ASN1_SET_ANY`) of
/// `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }` (`ASN1_SEQUENCE_ANY`),
/// and the values' own DER (`ASN1_TYPE`). No DER is written by hand here.
enum ReceiptASN1 {
    /// What an attribute's OCTET STRING holds.
    enum Value {
        case integer(Int64)
        case utf8(String)
        /// A date as Apple writes it: an IA5STRING in RFC 3339, `2026-01-31T09:30:00Z`.
        case date(Date)
        /// Raw bytes, not themselves DER (the opaque value, the hash, an in-app purchase's SET).
        case bytes([UInt8])
    }

    /// Every attribute's version: Apple's receipts carry 1 for the fields documented here.
    static let version: Int64 = 1

    static func failure(_ what: String) -> VerificationFailure {
        VerificationFailure(description: "not an app receipt: \(what)")
    }

    static func missing(_ type: Int) -> VerificationFailure { failure("field \(type) is missing or unreadable") }

    // MARK: - Writing

    /// A value's DER (`i2d_ASN1_TYPE`).
    static func der(of value: Value) throws(VerificationFailure) -> [UInt8] {
        let type = try asn1Type(value)
        defer { ASN1_TYPE_free(type) }
        return try encoded("a receipt value") { i2d_ASN1_TYPE(type, $0) }
    }

    /// A SET of attributes, sorted as DER sorts a SET OF (`i2d_ASN1_SET_ANY`).
    static func set(_ attributes: [(Int, Value)]) throws(VerificationFailure) -> [UInt8] {
        guard let set = cossl_asn1_any_stack_new() else { throw SigningKey.opensslError("a receipt's attribute set") }
        defer { cossl_asn1_any_stack_free(set) }
        for (type, value) in attributes {
            let inner: [UInt8] = switch value {
            case .bytes(let bytes): bytes
            default: try der(of: value)
            }
            let sequence = try sequenceDER([.integer(Int64(type)), .integer(version), .octets(inner)])
            try push(set, try wrapped(V_ASN1_SEQUENCE, sequence))
        }
        return try encoded("a receipt's attribute set") { i2d_ASN1_SET_ANY(set, $0) }
    }

    private enum Element { case integer(Int64), octets([UInt8]) }

    /// `SEQUENCE { INTEGER, INTEGER, OCTET STRING }` (`i2d_ASN1_SEQUENCE_ANY`).
    private static func sequenceDER(_ elements: [Element]) throws(VerificationFailure) -> [UInt8] {
        guard let sequence = cossl_asn1_any_stack_new() else { throw SigningKey.opensslError("a receipt attribute") }
        defer { cossl_asn1_any_stack_free(sequence) }
        for element in elements {
            switch element {
            case .integer(let number): try push(sequence, try asn1Type(.integer(number)))
            case .octets(let bytes): try push(sequence, try wrapped(V_ASN1_OCTET_STRING, bytes))
            }
        }
        return try encoded("a receipt attribute") { i2d_ASN1_SEQUENCE_ANY(sequence, $0) }
    }

    private static func push(_ stack: OpaquePointer, _ value: UnsafeMutablePointer<ASN1_TYPE>) throws(VerificationFailure) {
        guard cossl_asn1_any_stack_push(stack, value) > 0 else {
            ASN1_TYPE_free(value)
            throw SigningKey.opensslError("a receipt attribute")
        }
    }

    private static func asn1Type(_ value: Value) throws(VerificationFailure) -> UnsafeMutablePointer<ASN1_TYPE> {
        switch value {
        case .integer(let number):
            guard let integer = ASN1_INTEGER_new() else { throw SigningKey.opensslError("an INTEGER") }
            guard ASN1_INTEGER_set_int64(integer, number) == 1, let type = ASN1_TYPE_new() else {
                ASN1_INTEGER_free(integer)
                throw SigningKey.opensslError("an INTEGER")
            }
            ASN1_TYPE_set(type, V_ASN1_INTEGER, integer)
            return type
        case .utf8(let text): return try wrapped(V_ASN1_UTF8STRING, Array(text.utf8))
        case .date(let date): return try wrapped(V_ASN1_IA5STRING, Array(rfc3339(date).utf8))
        case .bytes(let bytes): return try wrapped(V_ASN1_OCTET_STRING, bytes)
        }
    }

    /// An ASN1_TYPE of a string type; for `V_ASN1_SEQUENCE` the bytes are the whole DER.
    private static func wrapped(_ tag: Int32, _ bytes: [UInt8]) throws(VerificationFailure) -> UnsafeMutablePointer<ASN1_TYPE> {
        guard let string = ASN1_STRING_type_new(tag) else { throw SigningKey.opensslError("an ASN.1 string") }
        guard bytes.count <= Int(Int32.max), ASN1_STRING_set(string, bytes, Int32(bytes.count)) == 1, let type = ASN1_TYPE_new() else {
            ASN1_STRING_free(string)
            throw SigningKey.opensslError("an ASN.1 string")
        }
        ASN1_TYPE_set(type, tag, string)
        return type
    }

    /// What an `i2d_…` call writes, copied out of OpenSSL's buffer.
    private static func encoded(_ what: String, _ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32)
        throws(VerificationFailure) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        let length = write(&bytes)
        guard length > 0, let bytes else { throw SigningKey.opensslError("encoding \(what)") }
        defer { cossl_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    // MARK: - Reading

    /// A SET of attributes: each one's type and its OCTET STRING's bytes, in the order found.
    static func attributes(_ der: [UInt8]) throws(VerificationFailure) -> [(type: Int, value: [UInt8])] {
        let set: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return d2i_ASN1_SET_ANY(nil, &pointer, buffer.count)
        }
        guard let set else { throw failure("the payload is not an ASN.1 SET") }
        defer { cossl_asn1_any_stack_free(set) }
        var found: [(type: Int, value: [UInt8])] = []
        for index in 0..<cossl_asn1_any_stack_count(set) {
            guard let element = cossl_asn1_any_stack_value(set, index), element.pointee.type == V_ASN1_SEQUENCE,
                  let sequenceString = element.pointee.value.sequence else {
                throw failure("an attribute is not a SEQUENCE")
            }
            let sequenceDER = bytes(of: sequenceString)
            let sequence: OpaquePointer? = sequenceDER.withUnsafeBufferPointer { buffer in
                var pointer = buffer.baseAddress
                return d2i_ASN1_SEQUENCE_ANY(nil, &pointer, buffer.count)
            }
            guard let sequence else { throw failure("an attribute is not a SEQUENCE") }
            defer { cossl_asn1_any_stack_free(sequence) }
            guard cossl_asn1_any_stack_count(sequence) == 3,
                  let type = cossl_asn1_any_stack_value(sequence, 0), type.pointee.type == V_ASN1_INTEGER,
                  let value = cossl_asn1_any_stack_value(sequence, 2), value.pointee.type == V_ASN1_OCTET_STRING,
                  let octets = value.pointee.value.octet_string else {
                throw failure("an attribute is not SEQUENCE { INTEGER, INTEGER, OCTET STRING }")
            }
            var number: Int64 = 0
            guard ASN1_INTEGER_get_int64(&number, type.pointee.value.integer) == 1, let typeNumber = Int(exactly: number) else {
                throw failure("an attribute's type is out of range")
            }
            found.append((typeNumber, bytes(of: octets)))
        }
        return found
    }

    /// A value read as one ASN1_TYPE of the tag expected.
    private static func value(_ der: [UInt8], tag: Int32, field: Int) throws(VerificationFailure) -> UnsafeMutablePointer<ASN1_TYPE> {
        let parsed: UnsafeMutablePointer<ASN1_TYPE>? = der.withUnsafeBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return d2i_ASN1_TYPE(nil, &pointer, buffer.count)
        }
        guard let parsed else { throw failure("field \(field)'s value is not DER") }
        guard parsed.pointee.type == tag else {
            ASN1_TYPE_free(parsed)
            throw failure("field \(field)'s value has ASN.1 tag \(parsed.pointee.type), not \(tag)")
        }
        return parsed
    }

    /// A UTF8STRING value.
    static func string(_ der: [UInt8], _ field: Int) throws(VerificationFailure) -> String {
        let parsed = try value(der, tag: V_ASN1_UTF8STRING, field: field)
        defer { ASN1_TYPE_free(parsed) }
        guard let text = String(validating: bytes(of: parsed.pointee.value.utf8string), as: UTF8.self) else {
            throw failure("field \(field) is not UTF-8")
        }
        return text
    }

    /// An IA5STRING date in RFC 3339.
    static func date(_ der: [UInt8], _ field: Int) throws(VerificationFailure) -> Date {
        let parsed = try value(der, tag: V_ASN1_IA5STRING, field: field)
        defer { ASN1_TYPE_free(parsed) }
        let text = String(decoding: bytes(of: parsed.pointee.value.ia5string), as: UTF8.self)
        guard let date = try? Date(text, strategy: .iso8601) else { throw failure("field \(field) is not an RFC 3339 date: \(text)") }
        return date
    }

    /// An INTEGER value.
    static func integer(_ der: [UInt8], _ field: Int) throws(VerificationFailure) -> Int64 {
        let parsed = try value(der, tag: V_ASN1_INTEGER, field: field)
        defer { ASN1_TYPE_free(parsed) }
        var number: Int64 = 0
        guard ASN1_INTEGER_get_int64(&number, parsed.pointee.value.integer) == 1 else {
            throw failure("field \(field)'s INTEGER is out of range")
        }
        return number
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    /// RFC 3339 in UTC to the second, as Apple's receipts write dates.
    static func rfc3339(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }
}
