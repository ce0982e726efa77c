import Foundation
import WalletOrders

/// The smallest order source folder that validates clean (no error, no warning), for
/// `wallet-orders init`: `order.json` with the keys Apple's schema requires, one line item, a
/// fulfillment of the chosen kind, a `webServiceURL` and a fresh random `authenticationToken` (so
/// the order can be updated once a service answers there), and 300×300 placeholder images for the
/// merchant's logo and the line item (the size the image rules recommend at 1x, without an alpha
/// channel).
struct OrderSourceTemplate {
    /// How the order reaches the customer: the fulfillment `order.json` starts with.
    enum Kind: String, CaseIterable {
        /// An online order shipped to the customer (a `shipping` fulfillment).
        case ecommerce
        /// An order the customer collects in a store (a `pickup` fulfillment).
        case pickup
    }

    var orderTypeIdentifier: String
    var kind: Kind
    /// `createdAt` and `updatedAt`.
    var date: Date
    /// The order's `webServiceURL`: where Wallet asks for updates.
    var webServiceURL: String = Self.placeholderWebServiceURL
    /// The order's `authenticationToken`: the shared secret a device sends the service.
    var authenticationToken: String = RandomSecret.token(length: 32)

    /// The `webServiceURL` init writes without `--web-service-url`: a name that resolves nowhere
    /// of the merchant's, to be replaced by the service's own base URL before the order ships.
    static let placeholderWebServiceURL = "https://orders.example.com"

    /// The order's `orderIdentifier`: the customer-facing placeholder the README's examples use.
    static let orderIdentifier = "ORDER-1"

    /// The files to write, by name, in the order they are listed.
    var files: [(name: String, bytes: [UInt8])] {
        [
            ("order.json", Array(orderJSON.utf8)),
            ("logo.png", Self.placeholderPNG),
            ("item.png", Self.placeholderPNG),
        ]
    }

    /// `order.com.example.shop` → `merchant.com.example.shop`, Apple's convention for the two.
    var merchantIdentifier: String {
        let suffix = orderTypeIdentifier.hasPrefix("order.") ? orderTypeIdentifier.dropFirst("order.".count) : orderTypeIdentifier[...]
        return "merchant." + suffix
    }

    var orderJSON: String {
        let timestamp = Self.rfc3339(date)
        let fulfillment =
            switch kind {
            case .ecommerce:
                """
                    {
                      "fulfillmentType": "shipping",
                      "fulfillmentIdentifier": "shipment-1",
                      "status": "processing",
                      "statusDescription": "We are preparing your order."
                    }
                """
            case .pickup:
                """
                    {
                      "fulfillmentType": "pickup",
                      "fulfillmentIdentifier": "pickup-1",
                      "displayName": "Example Store",
                      "status": "processing",
                      "statusDescription": "We are preparing your order for pickup."
                    }
                """
            }
        return """
            {
              "schemaVersion": 1,
              "orderTypeIdentifier": \(Self.quoted(orderTypeIdentifier)),
              "orderIdentifier": "\(Self.orderIdentifier)",
              "orderType": "ecommerce",
              "orderNumber": "1",
              "createdAt": "\(timestamp)",
              "updatedAt": "\(timestamp)",
              "status": "open",
              "merchant": {
                "displayName": "Example Store",
                "merchantIdentifier": \(Self.quoted(merchantIdentifier)),
                "url": "https://www.example.com/",
                "logo": "logo.png"
              },
              "lineItems": [
                {
                  "title": "Example item",
                  "quantity": 1,
                  "image": "item.png",
                  "price": {
                    "amount": "10.00",
                    "currency": "USD"
                  }
                }
              ],
              "payment": {
                "status": "paid",
                "total": {
                  "amount": "10.00",
                  "currency": "USD"
                }
              },
              "fulfillments": [
            \(fulfillment)
              ],
              "orderManagementURL": "https://www.example.com/orders/\(Self.orderIdentifier)",
              "webServiceURL": \(Self.quoted(webServiceURL)),
              "authenticationToken": \(Self.quoted(authenticationToken))
            }

            """
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// RFC 3339 in UTC, to the second (`2025-11-20T08:31:44Z`).
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// A 300×300 PNG of one light grey (#E5E5EA): 1 bit per pixel through a one-colour palette, so
    /// no alpha channel, 106 bytes. Made with Python's zlib: an IHDR (300, 300, depth 1, colour
    /// type 3), a PLTE of E5 E5 EA, and an IDAT of 300 zero rows, each a filter byte and 38 bytes.
    static let placeholderPNG: [UInt8] = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAASwAAAEsAQMAAABDsxw2AAAAA1BMVEXl5eprhSNeAAAAIklEQVR42u3BMQEAAADCoPVPbQo/oAAAAAAAAAAAAAAAeBkttAABAZVTBAAAAABJRU5ErkJggg=="
        ) ?? Data())
}
