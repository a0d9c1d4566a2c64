import CSQLite
import StoreSigning
import StoreCatalog

extension SealHasher {
    /// The seal's HMAC of a row's columns `columns`, in that order, in ``CanonicalBytes``' encoding,
    /// after `prefix` (a sealed record's table name).
    package func mac(row: Row, columns: [Column], prefix: [UInt8] = []) -> [UInt8] {
        start()
        pending += prefix
        for column in columns {
            if row.isNull(column) {
                pending += [UInt8(ascii: "n"), UInt8(ascii: ";")]
            } else if row.isInteger(column) {
                pending.append(UInt8(ascii: "i"))
                pending += String(row.int64(column)).utf8
                pending.append(UInt8(ascii: ";"))
            } else {
                row.withTextBytes(column) { text in
                    pending.append(UInt8(ascii: "t"))
                    pending += String(text.count).utf8
                    pending.append(UInt8(ascii: ":"))
                    if text.count > 256 {
                        flush()
                        update(text)  // a JWS: hashed where SQLite holds it, not copied
                    } else {
                        pending += text
                    }
                    pending.append(UInt8(ascii: ";"))
                }
            }
        }
        return finish()
    }
}
