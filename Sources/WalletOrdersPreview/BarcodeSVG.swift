import Foundation
import WalletOrders
import WalletOrdersBarcodeInterop

/// A barcode of `order.json` drawn as inline SVG: libzint's layout (through the interop layer),
/// dark modules on a white tile with the quiet zone the symbology needs, whatever the appearance,
/// as Wallet shows it.
enum BarcodeSVG {
    /// The SVG, or why there is none: an unknown format, or zint's reason when the message
    /// can't be encoded in that format.
    enum Rendering {
        case svg(String)
        case failed(String)
    }

    static func render(_ barcode: Barcode) -> Rendering {
        guard let symbology = BarcodeSymbology(rawValue: barcode.format.rawValue) else {
            return .failed("'\(barcode.format.rawValue)' is not a barcode format Wallet shows (qr, pdf417, aztec, code128).")
        }
        let message = bytes(of: barcode)
        guard !message.isEmpty else {
            return .failed("The barcode's message is empty: there is nothing to scan.")
        }
        let drawing: BarcodeDrawing
        do {
            drawing = try BarcodeEncoder.draw(message, as: symbology)
        } catch {
            return .failed("The barcode can't be drawn: \(error.message)")
        }
        let quiet = symbology.quietZoneModules * drawing.moduleSize
        let width = drawing.width + 2 * quiet
        let height = drawing.height + 2 * quiet
        var path = ""
        for r in drawing.rectangles {
            path += "M\(number(r.x + quiet)) \(number(r.y + quiet))h\(number(r.width))v\(number(r.height))h\(number(-r.width))z"
        }
        // Displayed size: square codes 180 px; PDF417 and Code 128 as wide as the card allows.
        let displayWidth = symbology == .qr || symbology == .aztec ? 180 : 290
        let label = "\(symbology.displayName): \(barcode.message)"
        let svg =
            "<svg class=\"barcode \(symbology.rawValue)\" data-format=\"\(symbology.rawValue)\" role=\"img\" aria-label=\"\(HTML.escape(label))\" "
            + "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(number(width)) \(number(height))\" width=\"\(displayWidth)\" "
            + "style=\"aspect-ratio: \(number(width)) / \(number(height))\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
        return .svg(svg)
    }

    /// The message in its `messageEncoding` (ISO 8859-1 unless it says otherwise); UTF-8 when the
    /// encoding is unknown or can't hold the message (validation reports that case).
    static func bytes(of barcode: Barcode) -> [UInt8] {
        let encoding: String.Encoding =
            switch barcode.messageEncoding.lowercased() {
            case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "iso_8859-1": .isoLatin1
            case "us-ascii", "ascii": .ascii
            default: .utf8
            }
        return barcode.message.data(using: encoding).map { Array($0) } ?? Array(barcode.message.utf8)
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}

extension BarcodeSymbology {
    var displayName: String {
        switch self {
        case .qr: "QR code"
        case .pdf417: "PDF417"
        case .aztec: "Aztec"
        case .code128: "Code 128"
        }
    }
}
