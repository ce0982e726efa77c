import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders --version`: what a bug report needs to know about the binary.
@Suite struct VersionEndToEndTests {
    @Test("--version names the version, the commit (or 'unknown commit'), the Swift compiler, OpenSSL and libzip")
    func versionNamesEverything() async throws {
        let result = try await CLI.run(["--version"])
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.output)")
        let first = try #require(lines.first)
        #expect(first.wholeMatch(of: /wallet-orders \d+\.\d+\.\d+ \((commit [0-9a-f]{7,}(-dirty)?|unknown commit)\)/) != nil, "\(first)")
        let second = try #require(lines.last)
        #expect(second.wholeMatch(of: /Swift \d+\.\d+( or later)?, OpenSSL \d+\.\d+\.\d+.*, libzip \d+\.\d+(\.\d+)?/) != nil, "\(second)")
        // The OpenSSL the tool runs with is the system's library, as `openssl version` reports it.
        let openssl = try await ExternalProgram.run(tool: "openssl", ["version"])
        let library = try #require(
            openssl.output.firstMatch(of: /Library: (OpenSSL [^)]+)\)/)?.1 ?? openssl.output.firstMatch(of: /^OpenSSL [^\n(]+/)?.0)
        #expect(second.contains(library.trimmingCharacters(in: .whitespaces)), "\(second) vs \(openssl.output)")
    }
}
