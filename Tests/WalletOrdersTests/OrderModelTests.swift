import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

// MARK: - Fixtures

/// One order.json document for the round-trip test: an inline fixture or a folder of `Samples/`.
struct OrderJSONFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var json: String

    var testDescription: String { name }

    /// The top-level `Samples/` folder, found from this file's path (symlinks resolved).
    static var samplesDirectory: URL {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent()  // WalletOrdersTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("Samples", isDirectory: true)
    }

    /// Every `Samples/<name>/order.json`, sorted by folder name.
    static var samples: [OrderJSONFixture] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: samplesDirectory.path)) ?? []
        return folders.sorted().compactMap { folder in
            let file = samplesDirectory.appendingPathComponent(folder).appendingPathComponent("order.json")
            guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
            return OrderJSONFixture(name: "Samples/\(folder)", json: String(decoding: data, as: UTF8.self))
        }
    }

    static let inline: [OrderJSONFixture] = [
        OrderJSONFixture(name: "bakery (spec §3.20, numeric amounts)", json: bakeryJSON),
        OrderJSONFixture(name: "minimal (spec §3.20)", json: minimalJSON),
        OrderJSONFixture(name: "every field set", json: everyFieldJSON),
    ]

    static var all: [OrderJSONFixture] { inline + samples }
}

/// Apple's bakery sample as given in spec §3.20, with JSON-number amounts.
let bakeryJSON = #"""
    {
      "schemaVersion": 1,
      "orderTypeIdentifier": "order.com.apple.wallet.dev.bakery",
      "orderIdentifier": "sample_bakery_order",
      "orderType": "ecommerce",
      "orderNumber": "BA050796",
      "createdAt": "2022-06-02T12:30:00Z",
      "updatedAt": "2022-06-09T18:00:00Z",
      "status": "completed",
      "merchant": { "displayName": "Bakery", "merchantIdentifier": "com.example.store",
                    "logo": "logo.png", "url": "https://www.example.com/" },
      "payment": { "status": "paid", "total": { "amount": 28.8, "currency": "USD" },
                   "summaryItems": [ { "label": "Subtotal", "value": { "amount": 24, "currency": "USD" } },
                                     { "label": "Tax", "value": { "amount": 4.8, "currency": "USD" } } ],
                   "paymentMethods": ["•••• 1234"] },
      "lineItems": [ { "image": "pastry.png", "price": { "amount": 0.8, "currency": "USD" },
                       "quantity": 10, "title": "Pain au Chocolate" } ],
      "fulfillments": [ {
          "fulfillmentType": "pickup", "fulfillmentIdentifier": "pickup.1", "status": "pickedUp",
          "statusDescription": "All done and crusted. We hope you love your order!",
          "displayName": "Bakery",
          "address": { "addressLines": ["1 Infinite Loop"], "locality": "Cupertino",
                       "administrativeArea": "California", "postalCode": "95014", "countryCode": "US" },
          "pickupAt": "2022-06-09T17:00:00Z", "pickedUpAt": "2022-06-09T17:01:00Z",
          "pickupWindowDuration": "P0Y0M0DT0H30M0S",
          "barcode": { "altText": "51039235023", "format": "code128",
                       "message": "51039235023", "messageEncoding": "iso-8859-1" } } ],
      "orderManagementURL": "https://www.example.com/"
    }
    """#

/// The minimal valid order of spec §3.20: required keys only.
let minimalJSON = #"""
    { "schemaVersion": 1, "orderTypeIdentifier": "order.com.example.shop", "orderIdentifier": "A-1",
      "orderType": "ecommerce", "status": "open",
      "createdAt": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-01T00:00:00Z",
      "orderManagementURL": "https://shop.example.com/orders/A-1",
      "merchant": { "displayName": "Shop", "merchantIdentifier": "merchant.com.example.shop",
                    "url": "https://shop.example.com/" } }
    """#

/// An order in which every field of every schema-version-1 object is set.
let everyFieldJSON = #"""
    {
      "schemaVersion": 1,
      "orderTypeIdentifier": "order.com.example.everything",
      "orderIdentifier": "E/100%",
      "orderType": "ecommerce",
      "status": "open",
      "createdAt": "2024-03-10T08:15:00-07:00",
      "updatedAt": "2024-03-11T09:00:00.250Z",
      "orderManagementURL": "https://shop.example.com/orders/E-100",
      "merchant": {
        "displayName": "Everything Store",
        "merchantIdentifier": "merchant.com.example.everything",
        "url": "https://shop.example.com/",
        "address": {
          "addressLines": ["1 Main Street", "Floor 2"],
          "administrativeArea": "CA",
          "countryCode": "US",
          "locality": "Springfield",
          "postalCode": "90210",
          "subAdministrativeArea": "Orange County",
          "subLocality": "Downtown"
        },
        "businessChatURL": "https://bcrw.apple.com/urn:biz:00000000-0000-0000-0000-000000000000",
        "contactURL": "https://shop.example.com/contact",
        "emailAddress": "help@shop.example.com",
        "logo": "logo.png",
        "phoneNumber": "+1 555 0100"
      },
      "associatedApplications": [
        { "storeIdentifier": 1234567890, "customProductPageIdentifier": "cpp-1",
          "launchURL": "everything://orders/E-100" }
      ],
      "associatedApplicationIdentifiers": ["ABCDE12345.com.example.everything"],
      "authenticationToken": "0123456789abcdef0123",
      "barcode": { "format": "qr", "message": "E-100", "messageEncoding": "iso-8859-1", "altText": "E-100" },
      "changeNotifications": "disabledIfAppInstalled",
      "customer": {
        "emailAddress": "pat@example.com", "familyName": "Doe", "givenName": "Pat",
        "organizationName": "Doe & Co", "phoneNumber": "+1 555 0199"
      },
      "fulfillments": [
        {
          "fulfillmentType": "shipping",
          "fulfillmentIdentifier": "ship-1",
          "status": "onTheWay",
          "carrier": "Example Parcel",
          "deliveredAt": "2024-03-14T16:20:00+05:30",
          "estimatedDeliveryAt": "2024-03-14T09:00:00Z",
          "estimatedDeliveryWindowDuration": "PT8H",
          "lineItems": [
            { "quantity": 1, "title": "Kettle", "gtin": "0123456789012", "image": "kettle.png",
                "price": { "amount": "19.99", "currency": "USD" }, "sku": "K-1", "subtitle": "Steel" }
          ],
          "notes": "Signature required.",
          "recipient": {
            "address": {
              "addressLines": ["2 Side Road"], "administrativeArea": "NY", "countryCode": "US",
              "locality": "Albany", "postalCode": "12207", "subAdministrativeArea": "Albany County",
              "subLocality": "Center Square"
            },
            "familyName": "Doe", "givenName": "Sam", "organizationName": "Doe & Co"
          },
          "shippedAt": "2024-03-12T07:00:00.123456789Z",
          "shippingType": "delivery",
          "statusDescription": "On its way.",
          "trackingNumber": "1Z999",
          "trackingURL": "https://track.example.com/1Z999?ref=a/b"
        },
        {
          "fulfillmentType": "pickup",
          "fulfillmentIdentifier": "pickup-1",
          "displayName": "Downtown Store",
          "status": "readyForPickup",
          "address": {
            "addressLines": ["1 Main Street"], "administrativeArea": "CA", "countryCode": "US",
            "locality": "Springfield", "postalCode": "90210", "subAdministrativeArea": "Orange County",
            "subLocality": "Downtown"
          },
          "barcode": { "format": "pdf417", "message": "P-1", "messageEncoding": "utf-8", "altText": "P-1" },
          "lineItems": [
            { "quantity": 2, "title": "Mug", "gtin": "0123456789029", "image": "mug.png",
                "price": { "amount": "17.49", "currency": "USD" }, "sku": "M-1", "subtitle": "Stoneware" }
          ],
          "location": { "latitude": 37.33182, "longitude": -122.03118, "altitude": 12.5 },
          "notes": "Counter 3.",
          "pickedUpAt": "2024-03-13T10:05:00+01:00",
          "pickupAt": "2024-03-13T10:00:00+01:00",
          "pickupWindowDuration": "P0Y0M0DT0H30M0S",
          "statusDescription": "Ready."
        }
      ],
      "lineItems": [
        {
          "quantity": 3, "title": "Kettle", "gtin": "0123456789012", "image": "kettle.png",
          "price": { "amount": "19.99", "currency": "USD" }, "sku": "K-1", "subtitle": "Steel"
        }
      ],
      "orderNumber": "E-100",
      "orderProvider": {
        "displayName": "Marketplace", "trackingLogoNameDarkColorScheme": "dark.png",
        "trackingLogoNameLightColorScheme": "light.png", "url": "https://marketplace.example.com/"
      },
      "payment": {
        "total": { "amount": "59.97", "currency": "USD" },
        "status": "authorized",
        "applePayTransactionIdentifiers": ["APPLEPAY-1"],
        "paymentMethods": ["Visa 1234"],
        "summaryItems": [
          { "label": "Subtotal", "value": { "amount": "54.97", "currency": "USD" } },
          { "label": "Shipping", "value": { "amount": "5.00", "currency": "USD" } }
        ],
        "transactions": [
          {
            "amount": { "amount": "59.97", "currency": "USD" },
            "createdAt": "2024-03-10T08:16:00-07:00",
            "paymentMethod": { "displayName": "Visa 1234" },
            "status": "completed",
            "transactionType": "purchase",
            "applePayTransactionIdentifier": "APPLEPAY-0",
            "receipt": "receipt.pdf"
          },
          {
            "amount": { "amount": "-19.99", "currency": "USD" },
            "createdAt": "2024-03-15T12:00:00Z",
            "paymentMethod": { "displayName": "Visa 1234" },
            "status": "pending",
            "transactionType": "refund",
            "applePayTransactionIdentifier": "APPLEPAY-2",
            "receipt": "refund.pdf"
          }
        ]
      },
      "returnInfo": {
        "returnPolicyURL": "https://shop.example.com/returns",
        "displayCountdown": true,
        "returnDeadline": "2024-04-10T23:59:59Z",
        "returnManagementURL": "https://shop.example.com/returns/start",
        "returnPolicyDescription": "30 days."
      },
      "returns": [
        {
          "returnIdentifier": "ret-1",
          "status": "processing",
          "carrier": "Example Parcel",
          "dropOffBy": "2024-03-20T18:00:00Z",
          "initiatedAt": "2024-03-15T11:00:00Z",
          "lineItems": [
            { "quantity": 1, "title": "Kettle", "gtin": "0123456789012", "image": "kettle.png",
                "price": { "amount": "19.99", "currency": "USD" }, "sku": "K-1", "subtitle": "Steel" }
          ],
          "notes": "Keep the receipt.",
          "returnLabel": "label.pdf",
          "returnManagementURL": "https://shop.example.com/returns/ret-1",
          "returnNumber": "R-1",
          "returnedAt": "2024-03-16T09:30:00Z",
          "statusDescription": "Being inspected."
        }
      ],
      "statusDescription": "Partly shipped.",
      "webServiceURL": "https://api.example.com/orders/"
    }
    """#

// MARK: - Helpers

/// Parses JSON text with `JSONSerialization`, the independent oracle for round trips.
private func jsonObject(_ data: Data) throws -> NSDictionary {
    let object = try JSONSerialization.jsonObject(with: data)
    return try #require(object as? NSDictionary)
}

/// Rewrites every `"amount": <plain JSON number>` as `"amount": "<the same digits>"`, which is
/// what encoding a decoded order must produce.
private func quotingNumericAmounts(_ json: String) -> String {
    json.replacing(#/("amount"\s*:\s*)(-?[0-9]+(?:\.[0-9]+)?)(?=\s*[,}])/#) { match in
        "\(match.output.1)\"\(match.output.2)\""
    }
}

/// Decodes `json` as an order and returns the JSON object `Order.encodedJSON()` produces.
private func roundTripped(_ json: String) throws -> (order: Order, encoded: Data) {
    let order = try Order.decode(from: Data(json.utf8))
    return (order, try order.encodedJSON())
}

/// Returns the key paths of every `nil` optional reachable from `value`.
private func nilOptionalPaths(in value: Any, path: String = "order") -> [String] {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
        guard let wrapped = mirror.children.first else { return [path] }
        return nilOptionalPaths(in: wrapped.value, path: path)
    }
    return mirror.children.enumerated().flatMap { index, child in
        nilOptionalPaths(in: child.value, path: path + "." + (child.label ?? "[\(index)]"))
    }
}

private func decodingErrorMessage(_ error: any Error) -> String? {
    switch error as? DecodingError {
    case .dataCorrupted(let context)?: context.debugDescription
    case .typeMismatch(_, let context)?: context.debugDescription
    default: nil
    }
}

private struct AmountBox: Codable {
    var amount: DecimalAmount
}

private struct TimestampBox: Codable {
    var at: Timestamp
}

// MARK: - Round trips

@Suite struct OrderModelTests {
    @Test(
        "Every fixture and sample re-encodes to the same JSON (numeric amounts become strings)",
        arguments: OrderJSONFixture.all)
    func roundTrip(fixture: OrderJSONFixture) throws {
        let (_, encoded) = try roundTripped(fixture.json)
        let expected = try jsonObject(Data(quotingNumericAmounts(fixture.json).utf8))
        let actual = try jsonObject(encoded)
        #expect(
            actual.isEqual(expected),
            "Re-encoded JSON differs:\n\(String(decoding: encoded, as: UTF8.self))"
        )
    }

    @Test("Every sample folder in Samples/ is included in the round-trip table")
    func samplesAreDiscovered() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: OrderJSONFixture.samplesDirectory.path)
        let withOrderJSON = folders.filter {
            FileManager.default.fileExists(
                atPath: OrderJSONFixture.samplesDirectory.appendingPathComponent($0)
                    .appendingPathComponent("order.json").path)
        }
        #expect(OrderJSONFixture.samples.map(\.name).sorted() == withOrderJSON.map { "Samples/\($0)" }.sorted())
    }

    @Test("The bakery order's numeric amounts decode exactly and encode as strings")
    func bakeryAmounts() throws {
        let (order, encoded) = try roundTripped(bakeryJSON)
        let payment = try #require(order.payment)
        #expect(payment.total.amount.text == "28.8")
        #expect(payment.summaryItems?.map(\.value.amount.text) == ["24", "4.8"])
        #expect(order.lineItems?.first?.price?.amount.text == "0.8")
        #expect(order.lineItems?.first?.quantity == 10)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#""amount" : "28.8""#))
        #expect(!text.contains(#""amount" : 28.8"#))
        guard case .pickup(let pickup)? = order.fulfillments?.first else {
            Issue.record("Expected a pickup fulfillment, got \(String(describing: order.fulfillments))")
            return
        }
        #expect(pickup.status == .pickedUp)
        #expect(pickup.barcode?.format == .code128)
        #expect(pickup.pickupWindowDuration == "P0Y0M0DT0H30M0S")
        #expect(pickup.address?.locality == "Cupertino")
    }

    @Test("The every-field fixture really sets every optional field of every object")
    func everyFieldFixtureIsComplete() throws {
        let order = try Order.decode(from: Data(everyFieldJSON.utf8))
        #expect(nilOptionalPaths(in: order) == [])
        guard case .shipping(let shipping)? = order.fulfillments?.first,
            case .pickup(let pickup)? = order.fulfillments?.last
        else {
            Issue.record("Expected shipping then pickup, got \(String(describing: order.fulfillments))")
            return
        }
        #expect(nilOptionalPaths(in: shipping) == [])
        #expect(nilOptionalPaths(in: pickup) == [])
        #expect(shipping.shippingType == .delivery)
        #expect(shipping.shippedAt?.nanoseconds == 123_456_789)
        #expect(pickup.location == Location(latitude: 37.33182, longitude: -122.03118, altitude: 12.5))
        #expect(order.payment?.transactions?.map(\.transactionType) == [.purchase, .refund])
        #expect(order.payment?.transactions?.last?.amount.amount == "-19.99")
        #expect(order.returns?.first?.status == .processing)
        #expect(order.returnInfo?.displayCountdown == true)
        #expect(order.orderProvider?.trackingLogoNameDarkColorScheme == "dark.png")
        #expect(order.associatedApplications?.first?.storeIdentifier == 1_234_567_890)
        #expect(order.changeNotifications == .disabledIfAppInstalled)
    }

    @Test("A minimal order built in Swift encodes to sorted, pretty-printed JSON without nil fields or escaped slashes")
    func minimalEncodingIsExact() throws {
        let order = Order(
            orderTypeIdentifier: "order.com.example.shop",
            orderIdentifier: "A-1",
            status: .open,
            createdAt: "2024-01-01T00:00:00Z",
            updatedAt: "2024-01-01T00:00:00Z",
            merchant: Merchant(
                displayName: "Shop", merchantIdentifier: "merchant.com.example.shop", url: "https://shop.example.com/"),
            orderManagementURL: "https://shop.example.com/orders/A-1"
        )
        let expected = """
            {
              "createdAt" : "2024-01-01T00:00:00Z",
              "merchant" : {
                "displayName" : "Shop",
                "merchantIdentifier" : "merchant.com.example.shop",
                "url" : "https://shop.example.com/"
              },
              "orderIdentifier" : "A-1",
              "orderManagementURL" : "https://shop.example.com/orders/A-1",
              "orderType" : "ecommerce",
              "orderTypeIdentifier" : "order.com.example.shop",
              "schemaVersion" : 1,
              "status" : "open",
              "updatedAt" : "2024-01-01T00:00:00Z"
            }
            """
        #expect(String(decoding: try order.encodedJSON(), as: UTF8.self) == expected)
        #expect(try Order.decode(from: Data(minimalJSON.utf8)) == order)
    }

    @Test("A missing required field fails decoding with a DecodingError naming the key")
    func missingRequiredField() throws {
        let json = minimalJSON.replacingOccurrences(of: #""status": "open","#, with: "")
        #expect {
            try Order.decode(from: Data(json.utf8))
        } throws: { error in
            guard case .keyNotFound(let key, _)? = error as? DecodingError else { return false }
            return key.stringValue == "status"
        }
    }

    // MARK: - Open enumerations

    @Test("Unknown enumeration values decode, report isKnown == false and re-encode unchanged")
    func unknownEnumerationValues() throws {
        let json =
            bakeryJSON
            .replacingOccurrences(of: #""status": "completed""#, with: #""status": "onHold""#)
            .replacingOccurrences(of: #""format": "code128""#, with: #""format": "dataMatrix""#)
            .replacingOccurrences(of: #""status": "paid""#, with: #""status": "partiallyPaid""#)
        let (order, encoded) = try roundTripped(json)
        #expect(order.status.rawValue == "onHold")
        #expect(order.status.isKnown == false)
        #expect(order.status.description == "onHold")
        #expect(order.payment?.status == "partiallyPaid")
        #expect(order.payment?.status.isKnown == false)
        guard case .pickup(let pickup)? = order.fulfillments?.first else {
            Issue.record("Expected a pickup fulfillment")
            return
        }
        #expect(pickup.barcode?.format == Barcode.Format(rawValue: "dataMatrix"))
        #expect(pickup.barcode?.format.isKnown == false)
        #expect(pickup.status.isKnown == true)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#""status" : "onHold""#))
        #expect(text.contains(#""format" : "dataMatrix""#))
        #expect(text.contains(#""status" : "partiallyPaid""#))
        #expect(try jsonObject(encoded).isEqual(try jsonObject(Data(quotingNumericAmounts(json).utf8))))
    }

    @Test("Enumeration values are case-sensitive")
    func enumerationCaseSensitivity() {
        let status: Order.Status = "Open"
        #expect(status != .open)
        #expect(status.isKnown == false)
        #expect(Order.Status.open.isKnown)
    }

    @Test("Every enumeration lists exactly the values of spec §3.18, all known")
    func knownValuesMatchSpec() {
        /// The raw values an enumeration lists as known that also report `isKnown`.
        func known<Value: OpenEnumeration>(_: Value.Type) -> [String] {
            Value.knownValues.filter(\.isKnown).map(\.rawValue)
        }
        let actual: [String: [String]] = [
            "Order.status": known(Order.Status.self),
            "Order.orderType": known(Order.OrderType.self),
            "Order.changeNotifications": known(Order.ChangeNotifications.self),
            "Payment.status": known(Payment.Status.self),
            "PaymentTransaction.status": known(PaymentTransaction.Status.self),
            "PaymentTransaction.transactionType": known(PaymentTransaction.TransactionType.self),
            "ShippingFulfillment.status": known(ShippingFulfillment.Status.self),
            "ShippingFulfillment.shippingType": known(ShippingFulfillment.ShippingType.self),
            "PickupFulfillment.status": known(PickupFulfillment.Status.self),
            "Return.status": known(OrderReturn.Status.self),
            "Barcode.format": known(Barcode.Format.self),
        ]
        let spec: [String: [String]] = [
            "Order.status": ["open", "completed", "cancelled"],
            "Order.orderType": ["ecommerce"],
            "Order.changeNotifications": ["enabled", "disabledIfAppInstalled"],
            "Payment.status": ["pending", "authorized", "paid", "refunded", "declined", "voided"],
            "PaymentTransaction.status": ["pending", "approved", "completed", "cancelled", "failed"],
            "PaymentTransaction.transactionType": ["purchase", "refund"],
            "ShippingFulfillment.status": [
                "open", "processing", "onTheWay", "outForDelivery", "delivered", "shipped", "issue", "cancelled",
            ],
            "ShippingFulfillment.shippingType": ["shipping", "delivery"],
            "PickupFulfillment.status": ["open", "processing", "readyForPickup", "pickedUp", "issue", "cancelled"],
            "Return.status": ["open", "onTheWay", "processing", "issue", "completed", "cancelled"],
            "Barcode.format": ["qr", "pdf417", "aztec", "code128"],
        ]
        #expect(actual == spec)
        #expect(Order.Status.completed.isClosed && Order.Status.cancelled.isClosed && !Order.Status.open.isClosed)
    }

    // MARK: - Fulfillments

    @Test("An unknown fulfillmentType keeps its whole JSON object and re-encodes it unchanged")
    func unknownFulfillmentRoundTrip() throws {
        let unknown = #"""
            { "fulfillmentType": "digital", "fulfillmentIdentifier": "dl-1", "status": "available",
              "downloads": [ { "url": "https://example.com/a/b", "sizeMB": 1.5, "count": 3, "drm": false } ],
              "extra": null, "nested": { "price": 0.1, "big": 12345678901234567890 } }
            """#
        let json = minimalJSON.replacingOccurrences(
            of: #""orderType": "ecommerce","#, with: #""orderType": "ecommerce", "fulfillments": [\#(unknown)],"#)
        let (order, encoded) = try roundTripped(json)
        let fulfillment = try #require(order.fulfillments?.first)
        guard case .unknown(let kept) = fulfillment else {
            Issue.record("Expected .unknown, got \(fulfillment)")
            return
        }
        #expect(fulfillment.fulfillmentType == "digital")
        #expect(fulfillment.fulfillmentIdentifier == "dl-1")
        #expect(kept.object["status"] == .string("available"))
        #expect(kept.object["extra"] == .null)
        #expect(
            kept.object["nested"]
                == .object([
                    "price": .number(Decimal(string: "0.1")!),
                    "big": .number(Decimal(string: "12345678901234567890")!),
                ]))
        #expect(try jsonObject(encoded).isEqual(try jsonObject(Data(json.utf8))))
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#""big" : 12345678901234567890"#))
        #expect(text.contains(#""price" : 0.1"#))
    }

    @Test("Fulfillments decode by fulfillmentType and always encode it")
    func fulfillmentDiscrimination() throws {
        let order = try Order.decode(from: Data(everyFieldJSON.utf8))
        #expect(order.fulfillments?.map(\.fulfillmentType) == ["shipping", "pickup"])
        #expect(order.fulfillments?.map(\.fulfillmentIdentifier) == ["ship-1", "pickup-1"])

        let shipping = ShippingFulfillment(fulfillmentIdentifier: "s", status: .shipped)
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Fulfillment.shipping(shipping)))
        #expect(
            (encoded as? NSDictionary)?.isEqual([
                "fulfillmentType": "shipping", "fulfillmentIdentifier": "s",
                "status": "shipped",
            ]) == true)
        #expect(shipping.fulfillmentType == "shipping")
        #expect(
            PickupFulfillment(displayName: "d", fulfillmentIdentifier: "p", status: .open).fulfillmentType == "pickup")
    }

    @Test("Decoding a pickup object as ShippingFulfillment fails with a message naming both types")
    func mismatchedFulfillmentType() {
        let json = #"{ "fulfillmentType": "pickup", "fulfillmentIdentifier": "p", "status": "open" }"#
        #expect {
            try JSONDecoder().decode(ShippingFulfillment.self, from: Data(json.utf8))
        } throws: { error in
            decodingErrorMessage(error) == #"Expected fulfillmentType "shipping", found "pickup""#
        }
    }

    // MARK: - Amounts

    @Test(
        "A JSON number amount becomes its exact decimal text",
        arguments: [
            ("28.8", "28.8"), ("0.1", "0.1"), ("19.99", "19.99"), ("1e2", "100"),
            ("1000000.005", "1000000.005"), ("24", "24"), ("-0.5", "-0.5"),
        ])
    func numericAmounts(json: String, text: String) throws {
        let box = try JSONDecoder().decode(AmountBox.self, from: Data(#"{"amount": \#(json)}"#.utf8))
        #expect(box.amount.text == text)
        #expect(box.amount.decimalValue == Decimal(string: text))
        let encoded = String(decoding: try JSONEncoder().encode(box), as: UTF8.self)
        #expect(encoded == #"{"amount":"\#(text)"}"#)
    }

    @Test("A string amount keeps its text; equality and hashing use the numeric value")
    func stringAmounts() throws {
        let box = try JSONDecoder().decode(AmountBox.self, from: Data(#"{"amount": "28.80"}"#.utf8))
        #expect(box.amount.text == "28.80")
        #expect(box.amount.fractionDigits == 2)
        #expect(box.amount == "28.8")
        #expect(box.amount.hashValue == DecimalAmount("28.8").hashValue)
        #expect(Set<DecimalAmount>(["28.80", "28.8", "028.800", "1", "1.0"]).count == 2)
        #expect(String(decoding: try JSONEncoder().encode(box), as: UTF8.self) == #"{"amount":"28.80"}"#)
        #expect(DecimalAmount("0.00") == DecimalAmount("-0"))
        #expect(DecimalAmount("0.00").isNegative == false)
        #expect(DecimalAmount("8800").fractionDigits == 0)
    }

    @Test("Amounts convert from Decimal and Int and compare numerically")
    func amountConversionsAndOrdering() throws {
        #expect(DecimalAmount(Decimal(string: "12.345")!).text == "12.345")
        #expect(DecimalAmount(Decimal(100)).text == "100")
        #expect(DecimalAmount(-42).text == "-42")
        let literal: DecimalAmount = 7
        #expect(literal.text == "7")
        #expect(DecimalAmount("19.99").decimalValue == Decimal(string: "19.99"))
        let parsed = try DecimalAmount(String("19.990"))
        #expect(parsed.text == "19.990")
        let sorted: [DecimalAmount] = ["10", "-1.5", "0.5", "-2", "0", "9.99", "0.45"].sorted()
        #expect(sorted.map(\.text) == ["-2", "-1.5", "0", "0.45", "0.5", "9.99", "10"])
        #expect(DecimalAmount("123456789012345678901234567890.1") < DecimalAmount("123456789012345678901234567890.2"))
    }

    @Test(
        "A string that isn't a plain decimal fails decoding with a message saying what is wrong",
        arguments: [
            ("12,50", "\",\" isn't allowed"), ("1e3", "exponent notation isn't allowed"),
            ("abc", "\"a\" at offset 0 isn't allowed"), ("", "the text is empty"),
            (".5", "needs a digit before \".\""), ("5.", "needs a digit after \".\""),
            ("+1", "\"+\" sign isn't allowed"), ("1 000", "whitespace isn't allowed"),
            ("1.2.3", "more than one \".\""), ("-", "it has no digits"), ("1-2", "only allowed as the first"),
        ])
    func invalidAmountStrings(text: String, reason: String) throws {
        #expect {
            try JSONDecoder().decode(AmountBox.self, from: Data(#"{"amount": "\#(text)"}"#.utf8))
        } throws: { error in
            guard case .dataCorrupted(let context)? = error as? DecodingError else { return false }
            return context.debugDescription.hasPrefix("Invalid decimal amount \"\(text)\": ")
                && context.debugDescription.contains(reason)
                && context.codingPath.map(\.stringValue) == ["amount"]
        }
        #expect(throws: ValueFormatError.self) { try DecimalAmount(text) }
    }

    @Test("An amount that is neither a string nor a number fails with a type mismatch")
    func amountTypeMismatch() {
        #expect {
            try JSONDecoder().decode(AmountBox.self, from: Data(#"{"amount": true}"#.utf8))
        } throws: { error in
            guard case .typeMismatch(_, let context)? = error as? DecodingError else { return false }
            return context.debugDescription.contains("JSON string")
        }
    }

    // MARK: - Timestamps

    @Test(
        "Valid RFC 3339 timestamps parse to the exact instant",
        arguments: [
            ("1970-01-01T00:00:00Z", 0, 0), ("2022-06-02T12:30:00Z", 1_654_173_000, 0),
            ("2024-02-01T19:45:50+00:00", 1_706_816_750, 0), ("2024-01-01T05:30:00+05:30", 1_704_067_200, 0),
            ("2024-01-01T00:00:00-00:00", 1_704_067_200, 0), ("2024-01-01t00:00:00z", 1_704_067_200, 0),
            ("2024-03-10T08:15:00-07:00", 1_710_083_700, 0), ("2024-01-01T00:00:00.5Z", 1_704_067_200, 500_000_000),
            ("2024-01-01T00:00:00.123456789Z", 1_704_067_200, 123_456_789),
            ("2024-01-01T00:00:00.1234567899Z", 1_704_067_200, 123_456_789),
            ("2024-02-29T23:59:59Z", 1_709_251_199, 0), ("2000-02-29T00:00:00Z", 951_782_400, 0),
            ("2016-12-31T23:59:60Z", 1_483_228_800, 0), ("1969-12-31T23:59:59.5Z", -1, 500_000_000),
            ("0001-01-01T00:00:00Z", -62_135_596_800, 0), ("9999-12-31T23:59:59Z", 253_402_300_799, 0),
        ] as [(String, Int64, Int32)])
    func validTimestamps(text: String, seconds: Int64, nanoseconds: Int32) throws {
        let timestamp = try Timestamp(rfc3339: text)
        #expect(timestamp.secondsSince1970 == seconds)
        #expect(timestamp.nanoseconds == nanoseconds)
        #expect(timestamp.text == text)
        let box = try JSONDecoder().decode(TimestampBox.self, from: Data(#"{"at": "\#(text)"}"#.utf8))
        #expect(String(decoding: try JSONEncoder().encode(box), as: UTF8.self) == #"{"at":"\#(text)"}"#)
    }

    @Test(
        "Invalid timestamps fail decoding with a message saying what is wrong",
        arguments: [
            ("2024-01-01T00:00:00", "no UTC offset"), ("2024-01-01 00:00:00Z", "separated by a space"),
            ("2023-02-29T00:00:00Z", "day 29 doesn't exist: February 2023 has 28 days"),
            ("1900-02-29T00:00:00Z", "February 1900 has 28 days"), ("2024-04-31T00:00:00Z", "April 2024 has 30 days"),
            ("2024-13-01T00:00:00Z", "month 13"), ("2024-00-10T00:00:00Z", "month 0"),
            ("2024-01-00T00:00:00Z", "day 0"),
            ("2024-01-01T24:00:00Z", "hour 24"), ("2024-01-01T12:60:00Z", "minute 60"),
            ("2024-01-01T12:00:61Z", "second 61"), ("2024-01-01T12:00Z", "seconds are required"),
            ("2024-1-01T00:00:00Z", "month must be exactly 2 digits"), ("2024-01-01T00:00:00.Z", "at least one digit"),
            ("2024-01-01T00:00:00+0100", "offset hour (write \"+hh:mm\")"),
            ("2024-01-01T00:00:00+24:00", "offset hour 24"),
            ("2024-01-01T00:00:00Zjunk", "unexpected text"), ("", "year must be exactly 4 digits"),
            ("2024-01-01", "no time"), ("24-01-01T00:00:00Z", "year must be exactly 4 digits"),
            ("2024-01-01T00:00:00 Z", "expected \"Z\""),
        ])
    func invalidTimestamps(text: String, reason: String) throws {
        #expect {
            try JSONDecoder().decode(TimestampBox.self, from: Data(#"{"at": "\#(text)"}"#.utf8))
        } throws: { error in
            guard case .dataCorrupted(let context)? = error as? DecodingError else { return false }
            return context.debugDescription.hasPrefix("Invalid RFC 3339 timestamp \"\(text)\": ")
                && context.debugDescription.contains(reason)
        }
        #expect(throws: ValueFormatError.self) { try Timestamp(rfc3339: text) }
    }

    @Test("Timestamps with different offsets for the same instant are equal and hash alike, keeping their text")
    func timestampEqualityAcrossOffsets() throws {
        let plusOne = try Timestamp(rfc3339: "2024-01-01T01:00:00+01:00")
        let utc = try Timestamp(rfc3339: "2024-01-01T00:00:00Z")
        let minus = try Timestamp(rfc3339: "2023-12-31T19:30:00-04:30")
        #expect(plusOne == utc)
        #expect(minus == utc)
        #expect(Set([plusOne, utc, minus]).count == 1)
        #expect(plusOne.text == "2024-01-01T01:00:00+01:00")
        #expect(plusOne.utcOffsetSeconds == 3600)
        #expect(minus.utcOffsetSeconds == -16_200)
        #expect(try Timestamp(rfc3339: "2024-01-01T00:00:00.000Z") == utc)
    }

    @Test("Timestamps order by instant, including fractional seconds and offsets")
    func timestampOrdering() throws {
        let texts = [
            "2024-01-01T00:00:01Z", "2024-01-01T00:00:00.51Z", "2024-01-01T00:00:00.5Z",
            "2024-01-01T00:59:59.999+01:00", "2024-01-01T00:00:00.500000001Z",
        ]
        let sorted = try texts.map { try Timestamp(rfc3339: $0) }.sorted().map(\.text)
        #expect(
            sorted == [
                "2024-01-01T00:59:59.999+01:00", "2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00.500000001Z",
                "2024-01-01T00:00:00.51Z", "2024-01-01T00:00:01Z",
            ])
    }

    @Test("Leap days exist only in leap years")
    func leapDays() {
        #expect((try? Timestamp(rfc3339: "2024-02-29T12:00:00Z"))?.secondsSince1970 == 1_709_208_000)
        #expect(throws: ValueFormatError.self) { try Timestamp(rfc3339: "2023-02-29T12:00:00Z") }
        #expect(throws: ValueFormatError.self) { try Timestamp(rfc3339: "2100-02-29T12:00:00Z") }
    }

    @Test("Timestamps made from Dates and instants are UTC with a fraction only when needed")
    func timestampFromDate() throws {
        #expect(Timestamp(Date(timeIntervalSince1970: 1_704_067_200)).text == "2024-01-01T00:00:00Z")
        #expect(Timestamp(Date(timeIntervalSince1970: 1_704_067_200.25)).text == "2024-01-01T00:00:00.25Z")
        #expect(Timestamp(Date(timeIntervalSince1970: -0.5)).text == "1969-12-31T23:59:59.5Z")
        #expect(Timestamp(secondsSince1970: 951_782_400).text == "2000-02-29T00:00:00Z")
        #expect(Timestamp(secondsSince1970: 0, nanoseconds: 120_000_000).text == "1970-01-01T00:00:00.12Z")
        let timestamp = try Timestamp(rfc3339: "2024-01-01T05:30:00.5+05:30")
        #expect(timestamp.date == Date(timeIntervalSince1970: 1_704_067_200.5))
        #expect(Timestamp(timestamp.date) == timestamp)
        #expect(Timestamp(timestamp.date).text == "2024-01-01T00:00:00.5Z")
    }

    // MARK: - Identity

    @Test(
        "The fully qualified identifier's string form escapes % and / and parses back",
        arguments: [
            ("order.com.example.shop", "A-1", "order.com.example.shop/A-1"),
            ("order.com.example.shop", "A/1", "order.com.example.shop/A%2F1"),
            ("order.com.ex%ample", "100%/2F", "order.com.ex%25ample/100%25%2F2F"),
            ("a/b", "%2F", "a%2Fb/%252F"), ("", "", "/"), ("order.é", "Ünïcode 🥐", "order.é/Ünïcode 🥐"),
        ])
    func stringForm(orderTypeIdentifier: String, orderIdentifier: String, stringForm: String) throws {
        let identifier = FullyQualifiedOrderIdentifier(
            orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        #expect(identifier.stringForm == stringForm)
        #expect(identifier.description == stringForm)
        let parsed = try #require(FullyQualifiedOrderIdentifier(stringForm: stringForm))
        #expect(parsed.orderTypeIdentifier == orderTypeIdentifier)
        #expect(parsed.orderIdentifier == orderIdentifier)
        #expect(parsed == identifier)
    }

    @Test(
        "String forms that no identifier produces don't parse",
        arguments: ["no-slash", "a/b/c", "a/%41", "a/%2f", "a/%", "a/%2", "%/b"])
    func invalidStringForms(text: String) {
        #expect(FullyQualifiedOrderIdentifier(stringForm: text) == nil)
    }

    @Test("Fully qualified identifiers compare exactly, case-sensitively and byte by byte")
    func identifierExactness() throws {
        let lower = FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.x", orderIdentifier: "a")
        let upper = FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.x", orderIdentifier: "A")
        #expect(lower != upper)
        let precomposed = FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.x", orderIdentifier: "\u{E9}")
        let decomposed = FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.x", orderIdentifier: "e\u{301}")
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed, lower, upper]).count == 4)
        #expect([lower, upper].sorted() == [upper, lower])

        let order = try Order.decode(from: Data(everyFieldJSON.utf8))
        #expect(order.fullyQualifiedIdentifier.stringForm == "order.com.example.everything/E%2F100%25")
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(order.fullyQualifiedIdentifier))
        #expect(
            (encoded as? NSDictionary)?.isEqual(
                ["orderTypeIdentifier": "order.com.example.everything", "orderIdentifier": "E/100%"]) == true)
    }
}
