import Foundation
import WalletOrders
import WalletPasses

/// The smallest pass source folder of each style that validates clean (no error, no warning),
/// for `wallet-orders init --pass STYLE`: `pass.json` with the keys Wallet requires, fields for
/// the style, a QR code, a `webServiceURL` and a fresh random `authenticationToken`, and
/// placeholder images at Apple's sizes: the icon (29×29 pt) and the logo (160×50 pt) at @1x, @2x
/// and @3x.
struct PassSourceTemplate {
    /// The styles `init --pass` writes.
    enum Style: String, CaseIterable {
        case boardingPass, coupon, eventTicket, generic, storeCard
    }

    var passTypeIdentifier: String
    var teamIdentifier: String
    var style: Style
    /// The pass's `webServiceURL`: where Wallet asks for updates.
    var webServiceURL: String = Self.placeholderWebServiceURL
    /// The pass's `authenticationToken`: the shared secret a device sends the service.
    var authenticationToken: String = RandomSecret.token(length: 32)

    /// The `webServiceURL` init writes without `--web-service-url`, to be replaced by the service's.
    static let placeholderWebServiceURL = "https://passes.example.com"

    /// The pass's `serialNumber`.
    static let serialNumber = "PASS-1"

    /// The files to write, by name, in the order they are listed.
    var files: [(name: String, bytes: [UInt8])] {
        [("pass.json", Array(passJSON.utf8))] + Self.images.map { ($0.name, Array(Data(base64Encoded: $0.base64) ?? Data())) }
    }

    /// The fields of the style, as the lines of its dictionary.
    var fields: String {
        switch style {
        case .boardingPass:
            """
                "transitType": "PKTransitTypeTrain",
                "primaryFields": [
                  {"key": "origin", "label": "FROM", "value": "Zürich"},
                  {"key": "destination", "label": "TO", "value": "Geneva"}
                ],
                "secondaryFields": [{"key": "passenger", "label": "PASSENGER", "value": "Ada Lovelace"}],
                "auxiliaryFields": [
                  {"key": "car", "label": "CAR", "value": "7"},
                  {"key": "seat", "label": "SEAT", "value": "42"}
                ]
            """
        case .coupon:
            """
                "primaryFields": [{"key": "offer", "label": "OFFER", "value": "20% off"}],
                "secondaryFields": [{"key": "expires", "label": "VALID UNTIL", "value": "2027-12-31T23:59:00Z", "dateStyle": "PKDateStyleMedium"}]
            """
        case .eventTicket:
            """
                "primaryFields": [{"key": "event", "label": "EVENT", "value": "Concert"}],
                "secondaryFields": [{"key": "seat", "label": "SEAT", "value": "Row 4, seat 12"}]
            """
        case .generic:
            """
                "primaryFields": [{"key": "member", "label": "MEMBER", "value": "Ada Lovelace"}],
                "secondaryFields": [{"key": "level", "label": "LEVEL", "value": "Gold"}]
            """
        case .storeCard:
            """
                "primaryFields": [{"key": "balance", "label": "BALANCE", "value": 25, "currencyCode": "EUR"}],
                "secondaryFields": [{"key": "member", "label": "MEMBER", "value": "Ada Lovelace"}]
            """
        }
    }

    var passJSON: String {
        """
        {
          "formatVersion": 1,
          "passTypeIdentifier": "\(passTypeIdentifier)",
          "serialNumber": "\(Self.serialNumber)",
          "teamIdentifier": "\(teamIdentifier)",
          "organizationName": "Example",
          "description": "Example \(style.rawValue)",
          "logoText": "Example",
          "foregroundColor": "rgb(255, 255, 255)",
          "backgroundColor": "rgb(31, 58, 95)",
          "labelColor": "rgb(242, 193, 78)",
          "webServiceURL": "\(webServiceURL)",
          "authenticationToken": "\(authenticationToken)",
          "barcodes": [
            {"format": "PKBarcodeFormatQR", "message": "\(Self.serialNumber)", "messageEncoding": "iso-8859-1", "altText": "\(Self.serialNumber)"}
          ],
          "\(style.rawValue)": {
        \(fields)
          }
        }

        """
    }

    /// One-colour (#1F3A5F) PNGs at the icon's and the logo's sizes: 1 bit per pixel through a
    /// one-colour palette, about 100 bytes each (made with Python's zlib).
    static let images: [(name: String, base64: String)] = [
        ("icon.png", "iVBORw0KGgoAAAANSUhEUgAAAB0AAAAdAQMAAABsXfVMAAAAA1BMVEUfOl9ufUuLAAAADElEQVR42mNgGGQAAACRAAG4yD/UAAAAAElFTkSuQmCC"),
        (
            "icon@2x.png",
            "iVBORw0KGgoAAAANSUhEUgAAADoAAAA6AQMAAADbddhrAAAAA1BMVEUfOl"
                + "9ufUuLAAAADklEQVR42mNgGAWjAAQAAgoAAdudqdMAAAAASUVORK5CYII="
        ),
        (
            "icon@3x.png",
            "iVBORw0KGgoAAAANSUhEUgAAAFcAAABXAQMAAABLBksvAAAAA1BMVEUfOl9u"
                + "fUuLAAAAEklEQVR42mNgGAWjYBSMAgQAAAQUAAFv7EqEAAAAAElFTkSuQmCC"
        ),
        (
            "logo.png",
            "iVBORw0KGgoAAAANSUhEUgAAAKAAAAAyAQMAAADhr0ImAAAAA1BMVEUfOl9u"
                + "fUuLAAAAEklEQVR42mNgGAWjYBSMAnQAAAQaAAGJGrelAAAAAElFTkSuQmCC"
        ),
        (
            "logo@2x.png",
            "iVBORw0KGgoAAAANSUhEUgAAAUAAAABkAQMAAADNFHt9AAAAA1BMVEUfOl9ufUuLAA"
                + "AAGklEQVR42u3BAQEAAACCIP+vbkhAAQAAAA8GEAQAAeC1Ng8AAAAASUVORK5CYII="
        ),
        (
            "logo@3x.png",
            "iVBORw0KGgoAAAANSUhEUgAAAeAAAACWAQMAAAA8Fsm+AAAAA1BMVEUfOl9ufUuLAAAAIE"
                + "lEQVR42u3BMQEAAADCoPVPbQwfoAAAAAAAAAAAgI8BI74AAWI3QxcAAAAASUVORK5CYII="
        ),
    ]
}
