import Foundation
import Testing
import WalletOrdersTestSupport

/// The HTTP API against its OpenAPI document, `Schemas/order-web-service.openapi.json`, judged by
/// tools we did not write: `openapi-spec-validator` checks the document, and `schemathesis` sends
/// generated requests (valid and invalid) to the real `wallet-orders serve` and checks that no
/// answer is a 5xx and that every status, header, media type and body is one the document allows.
///
/// The server runs on 127.0.0.1 (port 0) with a temporary store that holds two signed copies of
/// the shipped-ecommerce sample, so the authorized paths answer 200 too: schemathesis gets the
/// order's identifiers, its `authenticationToken`, the merchant key, a registered device and the
/// order's customer-link key through dictionaries in its configuration file.
@Suite("The HTTP API against Schemas/order-web-service.openapi.json (openapi-spec-validator, schemathesis)", .serialized)
struct SchemathesisTests {
    static let document = Repository.root.appendingPathComponent("Schemas/order-web-service.openapi.json")
    static let sample = Repository.sample("shipped-ecommerce")
    static let orderType = "order.com.northwindoutfitters.shop"
    static let orderIdentifier = "nw-2025-118734"
    /// A second copy of the sample, under this identifier: the one `DELETE` may remove.
    static let deletableOrderIdentifier = "nw-2025-118734-deletable"
    static let apiKey = "schemathesis-merchant-key-0123456789"
    static let device = "schemathesis-device-1"
    static let pushToken = "00112233445566778899aabbccddeeff"
    /// Requests a generated test may make per operation and phase.
    static let maximumExamples = 100
    /// How long the whole schemathesis run may take before it is killed: a guard against a hang,
    /// not a speed limit. The run's length is set by its work (`maximumExamples` per operation and
    /// phase), which takes about 2 minutes on a quiet 2-core machine and several times that on a
    /// busy one (a 300 s deadline once failed a correct run while the machine was busy).
    static let deadline: TimeInterval = 1_800 * TestTiming.scale

    @Test("The document is valid OpenAPI 3.1.0 (openapi-spec-validator)")
    func documentIsValid() async throws {
        let script = #"""
            import sys
            from openapi_spec_validator import validate
            from openapi_spec_validator.readers import read_from_filename
            document, _ = read_from_filename(sys.argv[1])
            if document.get("openapi") != "3.1.0":
                sys.exit("openapi is %r, not 3.1.0" % document.get("openapi"))
            validate(document)
            print("%d paths" % len(document["paths"]))
            """#
        let result = try await ExternalProgram.python(script, [Self.document.path])
        #expect(result.status == 0, "\(result)")
    }

    @Test(
        "schemathesis: no 5xx, and every status, header, media type and body matches the document",
        .timeLimit(.minutes(40)))
    func serverConformsToTheDocument() async throws {
        let run = try await Self.runSchemathesis()
        #expect(run.schemathesis.status == 0, "schemathesis failed (\(run.seconds) s):\n\(run.schemathesis.output)\(run.schemathesis.errorOutput)")
        // Every operation of the document was tested (none filtered out or skipped).
        let output = run.schemathesis.output
        let tested = output.split(separator: "\n").first { $0.contains("Tested:") }.map { $0.filter(\.isNumber) }
        #expect(tested == String(try Self.operationCount()), "\(output)")
        print("schemathesis: \(output.split(separator: "\n").last { $0.contains(" in ") && $0.contains("=") } ?? "") (\(run.seconds) s)")
        #expect(run.serverWasRunning, "the server ended during the run:\n\(run.server)")
        #expect(!run.server.contains("Fatal error"), "the server crashed:\n\(run.server)")
    }

    /// What one run found.
    struct Run: Sendable {
        var schemathesis: ProgramResult
        var seconds: Int
        var serverWasRunning: Bool
        /// The server's command and everything it printed.
        var server: String
    }

    /// Makes the store, starts the server, runs schemathesis against it and stops the server.
    static func runSchemathesis() async throws -> Run {
        let folder = try TemporaryFolder("schemathesis")
        defer { folder.remove() }
        let store = folder.file("orders.sqlite")
        let rootCA = try await fillStore(store, in: folder)
        // The key may act on the sample's order type only, so generated requests for other types get
        // the 403 the document describes.
        let keyFile = try folder.write(Array((apiKey + " " + orderType + "\n").utf8), to: "api-keys.txt")

        // Both the server and schemathesis run under `nice`: the rest of the test run, which runs
        // beside them, keeps the CPU it needs for its timing-sensitive tests.
        let server = try await BackgroundProgram(
            URL(fileURLWithPath: "/usr/bin/nice"),
            [
                "-n", "10", try WalletOrdersBinary.url().path, "serve", "--store", store.path, "--listen", "127.0.0.1:0", "--api-key-file",
                keyFile.path,
                "--trust-root", rootCA.path, "--log-level", "warning",
            ],
            environment: environment)
        defer { server.kill() }
        let line = try await server.waitForStandardError(containing: "listening on http://", timeout: 60)
        guard let baseURL = line.split(separator: " ").first(where: { $0.hasPrefix("http://127.0.0.1:") }).map(String.init) else {
            throw BackgroundProgramError(description: "no loopback address in '\(line)'")
        }

        let linkKey = try await prepare(baseURL)
        let configuration = try folder.write(Array(configuration(linkKey: linkKey).utf8), to: "schemathesis.toml")

        let started = Date()
        // Archives are bytes: schemathesis sends the generated ones as it sends application/octet-stream.
        let launcher = """
            import schemathesis, schemathesis.cli
            schemathesis.serializer.alias("application/vnd.apple.finance.order", "application/octet-stream")
            schemathesis.cli.schemathesis()
            """
        // In the temporary folder, where schemathesis and Hypothesis leave their caches.
        let result = try await ExternalProgram.run(
            tool: "python3",
            [
                "-c", launcher,
                "--config-file", configuration.path, "run", document.path, "--url", baseURL,
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance",
                "--phases", "examples,coverage,fuzzing,stateful", "--max-examples", "\(maximumExamples)",
                "--request-timeout", "\(Int(60 * TestTiming.scale))", "--max-failures", "20", "--generation-database", "none",
                // One worker: Python 3.11's ast.parse, which Hypothesis calls, is not thread-safe.
                "--workers", "1", "--no-color", "--suppress-health-check", "all",
            ],
            environment: environment, in: folder.url, timeout: deadline)
        let seconds = Int(Date().timeIntervalSince(started).rounded())
        let wasRunning = server.isRunning
        await server.stop()
        return Run(schemathesis: result, seconds: seconds, serverWasRunning: wasRunning, server: server.description)
    }

    // MARK: - Fixtures

    /// The test's environment, without `SOURCE_DATE_EPOCH`, with `NO_COLOR=1`.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = nil
        environment["NO_COLOR"] = "1"
        return environment
    }

    /// Runs `wallet-orders arguments…`, failing when it fails.
    static func walletOrders(_ arguments: [String]) async throws {
        let result = try await ExternalProgram.run(try WalletOrdersBinary.url(), arguments, environment: environment, timeout: 120)
        guard result.status == 0 else { throw BackgroundProgramError(description: "\(result)") }
    }

    /// Development certificates, the sample signed twice (its own identifier and
    /// ``deletableOrderIdentifier``) and saved in `store`; returns the root certificate to trust.
    static func fillStore(_ store: URL, in folder: TemporaryFolder) async throws -> URL {
        let certs = folder.file("certs")
        try await walletOrders(["dev-certs", "--order-type-id", orderType, "--team-id", "TESTTEAM01", "--out", certs.path])
        let signing = [
            "--cert", certs.appendingPathComponent("order-type.pem").path, "--key", certs.appendingPathComponent("order-type.key.pem").path,
            "--wwdr", certs.appendingPathComponent("wwdr-intermediate.pem").path,
        ]
        let copy = folder.file("deletable")
        try FileManager.default.copyItem(at: sample, to: copy)
        let orderJSON = copy.appendingPathComponent("order.json")
        let text = try String(contentsOf: orderJSON, encoding: .utf8)
        try text.replacingOccurrences(of: "\"\(orderIdentifier)\"", with: "\"\(deletableOrderIdentifier)\"")
            .write(to: orderJSON, atomically: true, encoding: .utf8)
        let archives = [folder.file("sample.order"), folder.file("deletable.order")]
        try await walletOrders(["build", sample.path, "--out", archives[0].path] + signing)
        try await walletOrders(["build", copy.path, "--out", archives[1].path] + signing)
        let rootCA = certs.appendingPathComponent("root-ca.pem")
        try await walletOrders(["store", "save", "--store", store.path, "--trust-root", rootCA.path] + archives.map(\.path))
        return rootCA
    }

    /// How many operations the document describes.
    static func operationCount() throws -> Int {
        let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: document)) as? [String: Any]
        guard let paths = document?["paths"] as? [String: [String: Any]] else {
            throw BackgroundProgramError(description: "the document has no paths")
        }
        return paths.values.map { $0.keys.filter(methods.contains).count }.reduce(0, +)
    }

    /// The sample's `authenticationToken`.
    static func authenticationToken() throws -> String {
        let data = try Data(contentsOf: sample.appendingPathComponent("order.json"))
        guard let order = try JSONSerialization.jsonObject(with: data) as? [String: Any], let token = order["authenticationToken"] as? String
        else { throw BackgroundProgramError(description: "the sample has no authenticationToken") }
        return token
    }

    /// Registers ``device`` for the sample (so "which orders changed" has an answer) and returns
    /// the key of the sample's customer link, both through the API.
    static func prepare(_ baseURL: String) async throws -> String {
        let script = #"""
            import json, sys, urllib.request
            base, order_path, token, key, device, push_token = sys.argv[1:7]
            request = urllib.request.Request(
                base + "/v1/devices/" + device + "/registrations/" + order_path, method="POST",
                data=json.dumps({"pushToken": push_token}).encode(),
                headers={"Authorization": "AppleOrder " + token, "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as answer:
                assert answer.status == 201, answer.status
            request = urllib.request.Request(
                base + "/merchant/v1/orders/" + order_path + "/link", headers={"Authorization": "Bearer " + key})
            with urllib.request.urlopen(request, timeout=10) as answer:
                print(json.load(answer)["path"].rsplit("/", 1)[1])
            """#
        let result = try await ExternalProgram.python(
            script, [baseURL, "\(orderType)/\(orderIdentifier)", try authenticationToken(), apiKey, device, pushToken],
            environment: environment)
        guard result.status == 0 else { throw BackgroundProgramError(description: "\(result)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// schemathesis's configuration: both credentials, and dictionaries that make generated
    /// requests name the stored orders, the registered device and the link key most of the time
    /// (`DELETE` only the deletable copy, so the other operations keep finding the sample).
    static func configuration(linkKey: String) throws -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return """
            [auth.openapi.AppleOrder]
            api_key = \(quoted("AppleOrder " + (try authenticationToken())))

            [auth.openapi.MerchantKey]
            bearer = \(quoted(apiKey))

            [dictionaries.order-types]
            values = [\(quoted(orderType))]

            [dictionaries.orders]
            values = [\(quoted(orderIdentifier))]

            [dictionaries.deletable-orders]
            values = [\(quoted(deletableOrderIdentifier))]

            [dictionaries.devices]
            values = [\(quoted(device))]

            [dictionaries.link-keys]
            values = [\(quoted(linkKey))]

            [dictionaries.push-tokens]
            values = [\(quoted(pushToken))]

            [parameters]
            "path.orderTypeIdentifier" = { dictionary = "order-types", probability = 0.8 }
            "path.deviceIdentifier" = { dictionary = "devices", probability = 0.5 }
            "path.key" = { dictionary = "link-keys", probability = 0.7 }

            [[operations]]
            exclude-operation-id = "deleteOrder"
            parameters = { "path.orderIdentifier" = { dictionary = "orders", probability = 0.7 } }

            [[operations]]
            include-operation-id = "deleteOrder"
            parameters = { "path.orderIdentifier" = { dictionary = "deletable-orders", probability = 0.3 } }

            # Values seen in answers (the identifiers that GET /merchant/v1/orders lists) would let
            # DELETE remove the sample that the other operations need.
            [phases.examples]
            extra-data-sources = { responses = false }

            [phases.coverage]
            extra-data-sources = { responses = false }

            [phases.fuzzing]
            extra-data-sources = { responses = false }

            """
    }
}
