import Foundation
import Testing
import WalletOrders
import WalletOrdersServer
import WalletOrdersTestSupport

@Suite("HTTP dates (RFC 9110 §5.6.7): formatted as Python's email.utils does, read in all three forms")
struct HTTPDateTests {
    @Test("IMF-fixdate of 400 instants from 1970 to 9999 equals Python's email.utils.formatdate(usegmt=True)")
    func formatMatchesPython() async throws {
        var generator = SystemRandomNumberGenerator()
        let instants: [Int64] =
            [0, 784_111_777, 951_782_400, 4_107_542_400, 253_402_300_799]
            + (0..<395).map { _ in Int64.random(in: 0...253_402_300_799, using: &generator) }
        let python = try await ExternalProgram.python(
            "import sys, email.utils\nfor arg in sys.argv[1:]:\n    print(email.utils.formatdate(int(arg), usegmt=True))",
            instants.map(String.init))
        let expected = python.output.split(separator: "\n").map(String.init)
        #expect(expected.count == instants.count)
        for (instant, text) in zip(instants, expected) {
            #expect(HTTPDate.format(secondsSince1970: instant) == text)
            #expect(HTTPDate.parse(text) == instant, "\(text)")
        }
    }

    @Test(
        "The three forms RFC 9110 asks recipients to read, and what they must not accept",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", Int64?.some(784_111_777)),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
            ("Sun Nov  6 08:49:37 1994", 784_111_777),
            ("Fri Nov 21 10:20:30 2025", 1_763_720_430),
            ("Thu, 29 Feb 2024 00:00:00 GMT", 1_709_164_800),
            ("Sun, 06 Nov 1994 08:49:37 UTC", nil),
            ("Sun, 6 Nov 1994 08:49:37 GMT", nil),
            ("Sun, 31 Nov 1994 08:49:37 GMT", nil),
            ("Sat, 29 Feb 2025 00:00:00 GMT", nil),
            ("Sun, 06 Nov 1994 25:00:00 GMT", nil),
            ("1994-11-06T08:49:37Z", nil),
            ("", nil),
            ("Sun, 06 Nov 1994 08:49:37 GMT and more", nil),
        ])
    func parse(text: String, expected: Int64?) {
        #expect(HTTPDate.parse(text) == expected)
    }
}
