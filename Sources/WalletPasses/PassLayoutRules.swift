import WalletOrdersJSON

/// Which layout each iOS version picks for a pass, and what falls back: the poster event ticket
/// (iOS 18) and the semantic boarding pass (iOS 26) need their semantic tags, or Wallet shows the
/// classic style without saying so; `posterGeneric` (iOS 27) needs its `generic` twin for older
/// systems; a barcode format new in iOS 27 needs a legacy one after it (passes specification §3.5,
/// §3.9, §6.1; Apple's articles on poster event tickets and semantic boarding passes; WWDC26-209).
enum PassLayoutRules {
    /// The semantic tags Apple lists for a poster event ticket, by event type beyond the common ones.
    static let posterSemantics = ["eventName", "venueName", "venueRegionName", "venueRoom"]
    static let posterSemanticsByEventType = [
        "PKEventTypeSports": ["awayTeamAbbreviation", "homeTeamAbbreviation"],
        "PKEventTypeLivePerformance": ["performerNames"],
    ]
    /// The semantic tags Apple lists for a semantic boarding pass.
    static let boardingSemantics = [
        "airlineCode", "flightNumber", "departureAirportCode", "departureCityName", "departureLocationTimeZone",
        "destinationAirportCode", "destinationCityName", "destinationLocationTimeZone", "originalDepartureDate",
        "originalBoardingDate", "originalArrivalDate", "passengerName",
    ]
    /// The barcode formats iOS 27 adds, which older systems can't draw.
    static let newBarcodeFormats: Set<String> = [
        "PKBarcodeFormatCode39", "PKBarcodeFormatCodabar", "PKBarcodeFormatEAN13", "PKBarcodeFormatI2of5",
    ]

    static func check(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        let schemes = (root["preferredStyleSchemes"]?.elements ?? []).compactMap(\.stringValue)
        let semantics = root["semantics"]
        if schemes.contains("posterEventTicket"), root["eventTicket"] != nil {
            var needed = posterSemantics
            if let type = semantics?["eventType"]?.stringValue { needed += posterSemanticsByEventType[type] ?? [] }
            let missing = needed.filter { semantics?[$0] == nil }
            if !missing.isEmpty {
                findings.append(
                    context.diagnostic(
                        .layoutPosterFallsBack,
                        "On iOS 18 and later this pass shows as a classic event ticket, not a poster: its semantics lack \(missing.joined(separator: ", ")). (On iOS 17 every event ticket is classic.)",
                        pointer: "/preferredStyleSchemes",
                        hint: "Add the semantic tags Apple lists for poster event tickets, or drop posterEventTicket from preferredStyleSchemes."))
            } else if !["background", "artwork"].contains(where: { context.files["\($0).png"] ?? context.files["\($0)@2x.png"] != nil }) {
                findings.append(
                    context.diagnostic(
                        .layoutPosterWithoutArtwork,
                        "A poster event ticket with no background or artwork image: on iOS 18 and later it shows without its artwork.",
                        pointer: "/preferredStyleSchemes", hint: "Add background.png (or artwork.png) at @1x, @2x and @3x."))
            }
        }
        if schemes.contains("semanticBoardingPass"), let boarding = root["boardingPass"] {
            var missing = boardingSemantics.filter { semantics?[$0] == nil }
            if boarding["transitType"]?.stringValue != "PKTransitTypeAir" { missing.insert("transitType PKTransitTypeAir", at: 0) }
            if !missing.isEmpty {
                findings.append(
                    context.diagnostic(
                        .layoutSemanticBoardingFallsBack,
                        "On iOS 26 and later this pass shows as a classic boarding pass, not a semantic one: it lacks \(missing.joined(separator: ", ")).",
                        pointer: "/preferredStyleSchemes",
                        hint: "Semantic boarding passes are for flights: add the semantic tags Apple lists, or drop semanticBoardingPass."))
            }
        }
        if root["posterGeneric"] != nil, root["generic"] == nil {
            findings.append(
                context.diagnostic(
                    .layoutPosterGenericWithoutGeneric,
                    "posterGeneric with no generic: iOS 26 and earlier can't add the pass (WWDC26-209), and passes sync to every device of the account.",
                    pointer: "/posterGeneric", hint: "Add a generic dictionary with the same pass's fields, the layout older iOS falls back to."))
        }
        let formats = (root["barcodes"]?.elements ?? []).compactMap { $0["format"]?.stringValue }
        if let first = formats.first, newBarcodeFormats.contains(first), !formats.contains(where: { !newBarcodeFormats.contains($0) }) {
            findings.append(
                context.diagnostic(
                    .layoutBarcodeWithoutFallback,
                    "The barcodes are all in formats new in iOS 27 (\(first)); iOS 26 and earlier show no barcode.",
                    pointer: "/barcodes", hint: "Add a QR, PDF417, Aztec or Code 128 barcode after it, which older systems draw."))
        }
    }
}
