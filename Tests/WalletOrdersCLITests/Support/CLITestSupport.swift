import Foundation
import Testing
import WalletOrdersTestSupport

/// The sample these tests build; the package root and `Samples/` come from
/// ``WalletOrdersTestSupport/Repository``.
extension Repository {
    static let shippedEcommerce = sample("shipped-ecommerce")
    /// `orderTypeIdentifier` and `orderIdentifier` of `Samples/shipped-ecommerce/order.json`.
    static let shippedOrderTypeIdentifier = "order.com.northwindoutfitters.shop"
    static let shippedOrderIdentifier = "nw-2025-118734"
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// Runs the built `wallet-orders` tool.
enum CLI {
    /// The environment for every run: the test's own, without `SOURCE_DATE_EPOCH`, with `NO_COLOR=1`.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = nil
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// Runs `wallet-orders arguments…` with ``environment(_:)`` plus `extra`.
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil,
        timeout: TimeInterval = ExternalProgram.defaultTimeout
    ) async throws -> ProgramResult {
        try await ExternalProgram.run(
            try WalletOrdersBinary.url(), arguments, environment: environment(extra), in: directory, timeout: timeout)
    }
}

/// The files `wallet-orders dev-certs` writes.
struct DevCertsFolder: Sendable {
    var directory: URL
    var rootCA: URL { directory.appendingPathComponent("root-ca.pem") }
    var wwdr: URL { directory.appendingPathComponent("wwdr-intermediate.pem") }
    var certificate: URL { directory.appendingPathComponent("order-type.pem") }
    var key: URL { directory.appendingPathComponent("order-type.key.pem") }
    var p12: URL { directory.appendingPathComponent("order-type.p12") }

    /// `--cert … --key … --wwdr …` for this folder.
    var signingArguments: [String] { ["--cert", certificate.path, "--key", key.path, "--wwdr", wwdr.path] }
}

/// Fixtures made once per test process (RSA key generation is the slow part) and only read by
/// tests. They live under one folder that is removed when the process exits.
enum SharedFixtures {
    static let folder: Result<TemporaryFolder, FixtureError> = {
        do {
            let folder = try TemporaryFolder("shared")
            atexit { try? SharedFixtures.folder.get().remove() }
            return .success(folder)
        } catch {
            return .failure(FixtureError(description: "The shared fixtures folder could not be made: \(error)"))
        }
    }()

    /// A signing time inside the dev certificates' validity (they start a day before they are
    /// made): the start of today, UTC, as RFC 3339. Fixed for the whole run.
    static let signingTime: Date = {
        let now = Date().timeIntervalSince1970
        return Date(timeIntervalSince1970: (now / 86_400).rounded(.down) * 86_400)
    }()
    static let signingTimeText: String = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: signingTime)
    }()

    /// Dev certs for the shipped-ecommerce sample's order type.
    static let certs = SharedFixture<DevCertsFolder> { try await makeCerts("certs") }
    /// A second, unrelated set (same names, different keys) for mix-up tests.
    static let otherCerts = SharedFixture<DevCertsFolder> { try await makeCerts("other-certs") }

    private static func makeCerts(_ name: String) async throws -> DevCertsFolder {
        let directory = try folder.get().file(name)
        let result = try await CLI.run([
            "dev-certs", "--order-type-id", Repository.shippedOrderTypeIdentifier, "--team-id", "TESTTEAM01",
            "--out",
            directory.path,
        ])
        guard result.status == 0 else { throw FixtureError(description: "dev-certs failed: \(result)") }
        return DevCertsFolder(directory: directory)
    }

    /// `Samples/shipped-ecommerce` built with ``certs`` at ``signingTime``.
    static let archive = SharedFixture<URL> {
        let url = try folder.get().file("shipped-ecommerce.order")
        let certs = try await SharedFixtures.certs.get()
        let result = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", url.path, "--signing-time", signingTimeText]
                + certs.signingArguments)
        guard result.status == 0 else { throw FixtureError(description: "build failed: \(result)") }
        return url
    }
}

/// Parses JSON output, failing the test with the text when it isn't JSON.
func parseJSON(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
    do {
        return try JSONSerialization.jsonObject(with: data)
    } catch {
        Issue.record("Not JSON: \(String(decoding: data, as: UTF8.self))", sourceLocation: sourceLocation)
        throw error
    }
}
