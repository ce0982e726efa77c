import CWalletOrdersOpenSSL
import Foundation

/// Conversions between OpenSSL's ASN.1 values and Swift values.
enum ASN1 {
    /// The instant an `ASN1_TIME` (UTCTime or GeneralizedTime) denotes.
    ///
    /// The corresponding C function is `ASN1_TIME_to_tm`.
    static func date(from time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// A new `ASN1_TIME` for `date` (UTCTime for 1950–2049, GeneralizedTime otherwise, as RFC 5280 asks).
    /// The caller owns the result (`ASN1_TIME_free`).
    ///
    /// The corresponding C function is `ASN1_TIME_set`.
    static func makeTime(_ date: Date) -> UnsafeMutablePointer<ASN1_TIME>? {
        ASN1_TIME_set(nil, time_t(date.timeIntervalSince1970.rounded(.down)))
    }

    /// The bytes of an ASN.1 string (octet string, integer content, …).
    static func bytes(of string: UnsafePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    /// The dotted-decimal form of an object identifier.
    ///
    /// The corresponding C function is `OBJ_obj2txt` with `no_name` set.
    static func dottedOID(_ object: OpaquePointer?) -> String {
        guard let object else { return "" }
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0 else { return "" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// OpenSSL's short name for an object identifier (`sha256`), or its dotted form when it has none.
    static func shortName(_ object: OpaquePointer?) -> String {
        let nid = OBJ_obj2nid(object)
        if nid != NID_undef, let name = OBJ_nid2sn(nid) { return String(cString: name) }
        return dottedOID(object)
    }
}
