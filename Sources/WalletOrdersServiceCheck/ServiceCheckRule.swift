/// A rule of Apple's order web service protocol that ``ServiceChecker`` checks: its stable
/// identifier and what it means.
///
/// A rule names what is checked, not how bad a deviation is: each ``ServiceFinding`` carries its
/// own severity. What Apple documents is an error when broken; what the protocol only implies
/// (the tag's form, `Last-Modified` matching `updatedAt`) is a warning.
public struct ServiceCheckRule: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stable identifier, such as `service.media-type`.
    public var id: String
    /// One line: what the rule checks.
    public var summary: String
    /// A paragraph: why it matters and where it comes from.
    public var explanation: String

    init(_ id: String, _ summary: String, _ explanation: String) {
        self.id = id
        self.summary = summary
        self.explanation = explanation
    }

    public var description: String { id }

    /// Every rule, in the order the checker runs them.
    public static let all: [ServiceCheckRule] = [
        .unauthorized, .unknownOrder, .order, .mediaType, .lastModified, .updatedAtAhead, .notModified, .modifiedSince, .register,
        .changedOrders, .tag, .log, .changeMovesTag, .changeServed, .unregister,
    ]

    /// Looks a rule up by identifier.
    public static func named(_ id: String) -> ServiceCheckRule? { all.first { $0.id == id } }

    /// Requests without the order's token are refused with 401.
    public static let unauthorized = ServiceCheckRule(
        "service.unauthorized", "Requests without the order's token are refused with 401.",
        "Apple: the order and registration endpoints require `Authorization: AppleOrder <authenticationToken>` and answer "
            + "401 Request Not Authorized otherwise. Checked with no Authorization header and with a wrong token.")
    /// An unknown order is answered 401, as a wrong token is.
    public static let unknownOrder = ServiceCheckRule(
        "service.unknown-order", "An unknown order is answered 401, as a wrong token is.",
        "Apple's table has no 404 for the order endpoint. A 404 for an order that doesn't exist (and 401 for one that "
            + "does) tells anyone who asks which order identifiers exist.")
    /// The order is served with its token: 200 and the signed archive of that order.
    public static let order = ServiceCheckRule(
        "service.order", "The order is served with its token: 200 and the signed archive of that order.",
        "Apple: GET /v1/orders/{orderTypeIdentifier}/{orderIdentifier} answers 200 with the signed .order archive, a zip "
            + "whose order.json has the requested orderTypeIdentifier and orderIdentifier.")
    /// The archive's Content-Type is application/vnd.apple.finance.order.
    public static let mediaType = ServiceCheckRule(
        "service.media-type", "The archive's Content-Type is application/vnd.apple.finance.order.",
        "Apple names application/vnd.apple.finance.order as the order archive's media type; look-alikes such as "
            + "application/vnd.apple.order or application/zip are not it.")
    /// Last-Modified is an RFC 9110 HTTP-date of the order's updatedAt.
    public static let lastModified = ServiceCheckRule(
        "service.last-modified", "Last-Modified is an RFC 9110 HTTP-date of the order's updatedAt.",
        "Apple asks for standard HTTP caching on the order endpoint. Wallet sends Last-Modified back as If-Modified-Since, "
            + "which RFC 9110 defines as an HTTP-date (Sun, 06 Nov 1994 08:49:37 GMT): epoch seconds or ISO 8601 are not one. "
            + "That it names updatedAt's second is inferred, so a mismatch is a warning.")
    /// The order's updatedAt is not ahead of the service's clock.
    public static let updatedAtAhead = ServiceCheckRule(
        "service.updated-at-ahead", "The order's updatedAt is not ahead of the service's clock.",
        "A finding about the order, not the service: Last-Modified can't be later than the answer's Date (RFC 9110 §8.8.2.1), "
            + "so while updatedAt is ahead of the service's clock the date Wallet sends back is older than the order, and the "
            + "archive is sent again on every check until the clock passes updatedAt. The conditional GET by date is not "
            + "judged then. Stores accept an updatedAt up to a margin (a day by default) ahead of their clock.")
    /// A conditional GET for the version the client has is answered 304.
    public static let notModified = ServiceCheckRule(
        "service.not-modified", "A conditional GET for the version the client has is answered 304.",
        "Apple asks for standard HTTP caching: If-Modified-Since with the Last-Modified the service sent, and If-None-Match "
            + "with its ETag, are answered 304 Not Modified. The If-Modified-Since sent is always an HTTP-date (the order's "
            + "updatedAt when Last-Modified isn't one), as Wallet's is, so a service that reads it as a number is caught "
            + "even when its own Last-Modified is a number too.")
    /// A conditional GET for an older version is answered 200.
    public static let modifiedSince = ServiceCheckRule(
        "service.modified-since", "A conditional GET for an older version is answered 200.",
        "If-Modified-Since a day before Last-Modified must get the archive (200), or a device holding an old version is never updated.")
    /// Registering a device answers 201, and 200 when it is already registered.
    public static let register = ServiceCheckRule(
        "service.register", "Registering a device answers 201, and 200 when it is already registered.",
        "Apple: POST /v1/devices/{deviceIdentifier}/registrations/{orderTypeIdentifier}/{orderIdentifier} with "
            + #"{"pushToken": "<hex>"} answers 201 Device Registered, then 200 Device Already Registered."#)
    /// The changed-orders list names the registered order with a tag.
    public static let changedOrders = ServiceCheckRule(
        "service.changed-orders", "The changed-orders list names the registered order with a tag.",
        "Apple: GET /v1/devices/{deviceIdentifier}/registrations/{orderTypeIdentifier} answers 200 with "
            + #"{"orderIdentifiers": [...], "lastModified": "..."} (application/json), or 204 when nothing matches."#)
    /// The tag is opaque and exact: the service's own tag gives 204 when nothing changed.
    public static let tag = ServiceCheckRule(
        "service.tag", "The tag is opaque and exact: the service's own tag gives 204 when nothing changed.",
        "The device echoes lastModified back as ordersModifiedSince. The service must answer 204 for its own unchanged tag "
            + "(a 200 listing the order again means the tag never moves or isn't honoured). A tag that is a floating-point "
            + "epoch string, compared as a time, loses changes made within the same instant's rounding: a warning.")
    /// The device log endpoint answers 200.
    public static let log = ServiceCheckRule(
        "service.log", "The device log endpoint answers 200.",
        #"Apple: POST /v1/log with {"logs": [...]} answers 200."#)
    /// After the order changes, the old tag lists it again with a new tag.
    public static let changeMovesTag = ServiceCheckRule(
        "service.change-moves-tag", "After the order changes, the old tag lists it again with a new tag.",
        "Apple's push says nothing about which order changed: the device asks for the orders changed since its tag. "
            + "A change that the old tag doesn't find, or a tag that doesn't move, leaves the device on the old version. "
            + "Checked only when the order can be changed through the merchant API.")
    /// After the order changes, a conditional GET for the old version gets the new one.
    public static let changeServed = ServiceCheckRule(
        "service.change-served", "After the order changes, a conditional GET for the old version gets the new one.",
        "If-Modified-Since and If-None-Match for the old version must be answered 200 with the new archive. "
            + "Checked only when the order can be changed through the merchant API.")
    /// Unregistering answers 200 and the order leaves the device's list.
    public static let unregister = ServiceCheckRule(
        "service.unregister", "Unregistering answers 200 and the order leaves the device's list.",
        "Apple: DELETE /v1/devices/{deviceIdentifier}/registrations/{orderTypeIdentifier}/{orderIdentifier} answers 200; "
            + "the device's list is then 204, or no longer names the order.")
}
