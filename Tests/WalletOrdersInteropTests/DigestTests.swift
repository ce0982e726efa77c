import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersTestSupport

@Suite struct DigestTests {
    /// FIPS 180-2 / NIST test vectors.
    static let vectors: [(input: String, hex: String)] = [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ]

    @Test("SHA256.hexHash matches the published vectors", arguments: vectors.indices)
    func matchesVector(index: Int) {
        let vector = Self.vectors[index]
        #expect(SHA256.hexHash(Array(vector.input.utf8)) == vector.hex)
        #expect(SHA256.hexHash(Data(vector.input.utf8)) == vector.hex)
        #expect(SHA256.hash(Array(vector.input.utf8)).count == 32)
    }

    @Test("A million 'a' hashes to the long-message vector")
    func millionA() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexHash(input) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("Hex.encode writes two lowercase digits per byte")
    func hex() {
        #expect(Hex.encode([0x00, 0x0f, 0xab, 0xff]) == "000fabff")
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode(SHA256.hash(Array("abc".utf8))) == Self.vectors[0].hex)
    }

    @Test("SecureRandom returns the asked number of bytes, different each time")
    func random() {
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32 && second.count == 32)
        #expect(first != second)
        #expect(SecureRandom.bytes(0) == [])
    }
}
