import CWalletOrdersBarcode

// libzint, for the preview's barcodes: the interop layer's second module, apart from OpenSSL and
// libzip so that the core library (and every merchant depending on it) never links libzint.

/// A failed libzint call: zint's return code and its error text.
package struct BarcodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The zint function that failed.
    package var function: String
    /// zint's `ZINT_ERROR_*` code.
    package var code: Int32
    /// zint's text (`errtxt`), such as `Error 800: Invalid character in data`.
    package var message: String

    package var description: String { "\(function) failed (\(code)): \(message)" }
}

/// The barcode symbologies Wallet shows.
package enum BarcodeSymbology: String, Sendable, Hashable, CaseIterable {
    case qr, pdf417, aztec, code128

    /// zint's `BARCODE_*` constant.
    var zintSymbology: Int32 {
        switch self {
        case .qr: BARCODE_QRCODE
        case .pdf417: BARCODE_PDF417
        case .aztec: BARCODE_AZTEC
        case .code128: BARCODE_CODE128
        }
    }

    /// The quiet zone a reader needs around the symbol, in modules (ISO/IEC 18004, 15438,
    /// 24778, 15417).
    package var quietZoneModules: Double {
        switch self {
        case .qr: 4
        case .pdf417: 2
        case .aztec: 1
        case .code128: 10
        }
    }
}

/// An encoded barcode laid out as dark rectangles on a light ground, in zint's vector units
/// (``moduleSize`` of them per module), with no quiet zone and no human-readable text.
package struct BarcodeDrawing: Sendable, Hashable {
    package struct Rectangle: Sendable, Hashable {
        package var x: Double
        package var y: Double
        package var width: Double
        package var height: Double
    }

    package var symbology: BarcodeSymbology
    package var width: Double
    package var height: Double
    /// Vector units per module (the symbol's narrowest bar or smallest square).
    package var moduleSize: Double
    package var rectangles: [Rectangle]
}

/// Encodes messages with libzint.
package enum BarcodeEncoder {
    /// libzint's version, such as `2.12.0` (zint reports 21200; a fourth digit is a test
    /// release). The corresponding C function is `ZBarcode_Version`.
    package static var libraryVersion: String {
        let number = Int(ZBarcode_Version())
        return "\(number / 10_000).\(number / 100 % 100).\(number / 10 % 10)"
    }

    /// Encodes `message` (the bytes to carry, already in the barcode's message encoding) as
    /// `symbology` and returns its layout.
    ///
    /// The corresponding C functions are `ZBarcode_Create`, `ZBarcode_Encode_and_Buffer_Vector`
    /// and `ZBarcode_Delete`; the symbol owns its vector, which `ZBarcode_Delete` frees, so the
    /// rectangles are copied out before it.
    package static func draw(_ message: [UInt8], as symbology: BarcodeSymbology) throws(BarcodeError) -> BarcodeDrawing {
        guard let symbol = ZBarcode_Create() else {
            throw BarcodeError(function: "ZBarcode_Create", code: -1, message: "out of memory")
        }
        defer { ZBarcode_Delete(symbol) }
        symbol.pointee.symbology = symbology.zintSymbology
        symbol.pointee.input_mode = DATA_MODE  // the bytes as given: messageEncoding was applied by the caller
        symbol.pointee.show_hrt = 0  // the page writes the message beneath, as Wallet does
        symbol.pointee.whitespace_width = 0
        symbol.pointee.whitespace_height = 0
        symbol.pointee.border_width = 0
        symbol.pointee.scale = 1
        if symbology == .code128 { symbol.pointee.height = 40 }
        if symbology == .pdf417 { symbol.pointee.option_2 = 4 }  // four data columns: a wide, short symbol like Wallet's
        let result = message.withUnsafeBufferPointer { buffer in
            ZBarcode_Encode_and_Buffer_Vector(symbol, buffer.baseAddress, Int32(buffer.count), 0)
        }
        guard result < ZINT_ERROR, let vector = symbol.pointee.vector else {
            throw BarcodeError(
                function: "ZBarcode_Encode_and_Buffer_Vector", code: result,
                message: String(cString: CWalletOrdersBarcode_errorText(symbol)))
        }
        var rectangles: [BarcodeDrawing.Rectangle] = []
        var node = vector.pointee.rectangles
        while let rect = node {
            rectangles.append(
                .init(
                    x: Double(rect.pointee.x), y: Double(rect.pointee.y),
                    width: Double(rect.pointee.width), height: Double(rect.pointee.height)))
            node = rect.pointee.next
        }
        return BarcodeDrawing(
            symbology: symbology, width: Double(vector.pointee.width), height: Double(vector.pointee.height),
            moduleSize: Double(vector.pointee.width) / Double(max(symbol.pointee.width, 1)),
            rectangles: rectangles)
    }
}
