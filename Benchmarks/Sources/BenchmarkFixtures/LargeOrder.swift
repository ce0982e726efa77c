public import WalletOrders

/// A large order, generated deterministically: 50 line items, each with its own 300×300 product
/// image, localized in three `.lproj` folders (strings and logo), about 4.8 MB of files in all:
/// near Wallet's 5 MB limit, so that hashing, zip and I/O costs show.
///
/// Images are 8-bit palette PNGs whose pixels are pseudo-random (like photographs, they don't
/// compress) in stored deflate blocks: valid PNGs written with no compression library.
public enum LargeOrder {
    static let itemCount = 50
    static let languages = ["en", "fr", "de"]
    static let orderTypeIdentifier = "order.com.example.bench.large"

    public static func source() -> OrderSource {
        var random = SplitMix64(seed: 0x5EED_0F_0DE5)
        var files: [String: [UInt8]] = [:]
        for item in 1...itemCount {
            files[imageName(item)] = PNG.noise(width: 300, height: 300, random: &random)
        }
        for language in languages {
            files["\(language).lproj/logo.png"] = PNG.noise(width: 300, height: 300, random: &random)
            files["\(language).lproj/order.strings"] = Array(strings(language).utf8)
        }
        files["order.json"] = Array(orderJSON().utf8)
        return OrderSource(files: files)
    }

    static func imageName(_ item: Int) -> String { "item-\(item < 10 ? "0" : "")\(item).png" }

    /// Price of item `n` in cents.
    static func cents(_ item: Int) -> Int { 1_000 + item * 137 }

    static func amount(_ cents: Int) -> String {
        let fraction = cents % 100
        return "\(cents / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func orderJSON() -> String {
        let items = (1...itemCount).map { item in
            """
                {
                  "title": "ITEM_\(item)_TITLE",
                  "subtitle": "ITEM_\(item)_SUBTITLE",
                  "quantity": 1,
                  "image": "\(imageName(item))",
                  "price": {
                    "amount": "\(amount(cents(item)))",
                    "currency": "EUR"
                  },
                  "sku": "BENCH-\(item)"
                }
            """
        }
        let subtotal = (1...itemCount).map(cents).reduce(0, +)
        let shipping = 590
        return """
            {
              "schemaVersion": 1,
              "orderTypeIdentifier": "\(orderTypeIdentifier)",
              "orderIdentifier": "BENCH-LARGE-1",
              "orderType": "ecommerce",
              "orderNumber": "1",
              "createdAt": "2025-10-06T10:15:00+02:00",
              "updatedAt": "2025-10-08T08:02:41+02:00",
              "status": "open",
              "statusDescription": "ORDER_STATUS",
              "merchant": {
                "displayName": "MERCHANT_NAME",
                "merchantIdentifier": "merchant.com.example.bench",
                "url": "https://shop.example/",
                "logo": "logo.png"
              },
              "lineItems": [
            \(items.joined(separator: ",\n"))
              ],
              "payment": {
                "status": "paid",
                "total": {
                  "amount": "\(amount(subtotal + shipping))",
                  "currency": "EUR"
                },
                "summaryItems": [
                  {
                    "label": "SUMMARY_SUBTOTAL",
                    "value": {
                      "amount": "\(amount(subtotal))",
                      "currency": "EUR"
                    }
                  },
                  {
                    "label": "SUMMARY_SHIPPING",
                    "value": {
                      "amount": "\(amount(shipping))",
                      "currency": "EUR"
                    }
                  }
                ]
              },
              "fulfillments": [
                {
                  "fulfillmentType": "shipping",
                  "fulfillmentIdentifier": "bench-large-1",
                  "status": "shipped",
                  "statusDescription": "SHIPPING_STATUS",
                  "carrier": "Colissimo",
                  "trackingNumber": "6A23456789012",
                  "shippedAt": "2025-10-07T15:20:00+02:00"
                }
              ],
              "orderManagementURL": "https://shop.example/orders/BENCH-LARGE-1"
            }
            """
    }

    static func strings(_ language: String) -> String {
        var lines = [
            "/* Benchmark order (\(language)) */",
            "\"MERCHANT_NAME\" = \"Bench Shop \(language)\";",
            "\"ORDER_STATUS\" = \"Your parcel is on its way (\(language)).\";",
            "\"SUMMARY_SUBTOTAL\" = \"Subtotal (\(language))\";",
            "\"SUMMARY_SHIPPING\" = \"Shipping (\(language))\";",
            "\"SHIPPING_STATUS\" = \"Shipped (\(language))\";",
        ]
        for item in 1...itemCount {
            lines.append("\"ITEM_\(item)_TITLE\" = \"Item \(item) (\(language))\";")
            lines.append("\"ITEM_\(item)_SUBTITLE\" = \"Variant \(item % 7) (\(language))\";")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// SplitMix64: a tiny deterministic generator (the same bytes on every platform and run).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Minimal PNG writing: palette images in stored (uncompressed) deflate blocks.
enum PNG {
    static func noise(width: Int, height: Int, random: inout SplitMix64) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for _ in 0..<height {
            raw.append(0)  // filter type None
            var produced = 0
            while produced < width {
                var word = random.next()
                for _ in 0..<min(8, width - produced) {
                    raw.append(UInt8(truncatingIfNeeded: word))
                    word >>= 8
                    produced += 1
                }
            }
        }
        var palette: [UInt8] = []
        for index in 0..<256 {
            palette += [UInt8(index), UInt8((index * 7) & 0xFF), UInt8(255 - index)]
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 3, 0, 0, 0]  // 8-bit, colour type 3 (palette), deflate, adaptive filtering, no interlace
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header)
        png += chunk("PLTE", palette)
        png += chunk("IDAT", storedZlib(raw))
        png += chunk("IEND", [])
        return png
    }

    static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let last: UInt8 = offset + length == data.count ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static let crcTable: [UInt32] = (0..<256).map { index in
        var c = UInt32(index)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
