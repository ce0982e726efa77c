import Testing
import WalletOrdersBarcodeInterop
import WalletOrdersTestSupport

/// libzint through the interop layer: each of Wallet's formats lays out, and zint's refusal
/// comes back as a ``BarcodeError`` with its text.
@Suite struct BarcodeEncoderTests {
    @Test("Each symbology gives a non-empty layout whose width is a whole number of modules", arguments: BarcodeSymbology.allCases)
    func layout(_ symbology: BarcodeSymbology) throws {
        let drawing = try BarcodeEncoder.draw(Array("NW-118734".utf8), as: symbology)
        #expect(!drawing.rectangles.isEmpty)
        #expect(drawing.moduleSize > 0)
        let modules = drawing.width / drawing.moduleSize
        #expect(abs(modules - modules.rounded()) < 0.001)
        for rectangle in drawing.rectangles {
            #expect(rectangle.x >= 0 && rectangle.x + rectangle.width <= drawing.width + 0.001)
            #expect(rectangle.y >= 0 && rectangle.y + rectangle.height <= drawing.height + 0.001)
        }
    }

    @Test("Square codes are square")
    func square() throws {
        for symbology in [BarcodeSymbology.qr, .aztec] {
            let drawing = try BarcodeEncoder.draw(Array("https://example.com/o/1".utf8), as: symbology)
            #expect(drawing.width == drawing.height)
        }
    }

    @Test("A message too long for a QR code is zint's error, with its text")
    func tooLong() {
        #expect {
            try BarcodeEncoder.draw([UInt8](repeating: UInt8(ascii: "x"), count: 8_000), as: .qr)
        } throws: { error in
            let error = error as? BarcodeError
            return error?.function == "ZBarcode_Encode_and_Buffer_Vector" && error?.message.isEmpty == false
        }
    }
}
