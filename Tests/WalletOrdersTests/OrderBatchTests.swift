import Foundation
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The batch API: ``OrderBatchBuilder``, its inputs, file names and ``OrderValidator/validateBatch(_:maximumConcurrency:now:)-(AsyncSequence,_,_)``.
@Suite(.temporaryFolder) struct OrderBatchTests {
    static let sample = "shipped-ecommerce"

    /// The sample's order.json with `changes` applied (top-level keys), as one JSON line.
    static func orderLine(_ changes: [String: Any]) throws -> [UInt8] {
        let data = try Data(contentsOf: Repository.sample(sample).appendingPathComponent("order.json"))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for (key, value) in changes { object[key] = value }
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    static func template() throws -> OrderBatchTemplate {
        try OrderBatchTemplate(directory: Repository.sample(sample))
    }

    static func batchBuilder(validate: Bool = true, concurrency: Int = 2) throws -> OrderBatchBuilder {
        let source = try SampleBuilds.source(sample)
        return try OrderBatchBuilder(
            identity: TestPKI.identity(for: try SampleBuilds.orderTypeIdentifier(of: source)), template: try template(),
            signingTime: TestPKI.signingTime, validate: validate, maximumConcurrency: concurrency)
    }

    static func collect<S: AsyncSequence>(_ results: S) async throws -> [OrderBatchResult] where S.Element == OrderBatchResult {
        var all: [OrderBatchResult] = []
        for try await result in results { all.append(result) }
        return all.sorted { $0.index < $1.index }
    }

    // MARK: - File names

    @Test(
        "Archive file names keep safe characters and percent-encode everything else",
        arguments: [
            ("A-1001", "A-1001.order"),
            ("nw-2025.118734_x", "nw-2025.118734_x.order"),
            ("../../etc/passwd", "%2E.%2F..%2Fetc%2Fpasswd.order"),
            ("a/b", "a%2Fb.order"),
            ("a\\b", "a%5Cb.order"),
            (".hidden", "%2Ehidden.order"),
            ("..", "%2E..order"),
            ("", "%.order"),
            ("tab\there\nnewline", "tab%09here%0Anewline.order"),
            ("100% ~sure", "100%25%20%7Esure.order"),
            ("café", "caf%C3%A9.order"),
            ("\u{7F}del", "%7Fdel.order"),
        ])
    func fileNames(identifier: String, expected: String) {
        #expect(OrderArchiveFileName.make(orderIdentifier: identifier) == expected)
    }

    @Test("Long identifiers are cut at an escape boundary and end with a hash of the whole identifier")
    func longFileNames() {
        let first = String(repeating: "x", count: 250) + "-1"
        let second = String(repeating: "x", count: 250) + "-2"
        let escaped = String(repeating: "/", count: 120)  // 360 bytes once encoded
        for identifier in [first, second, escaped] {
            let name = OrderArchiveFileName.make(orderIdentifier: identifier)
            #expect(name.utf8.count <= OrderArchiveFileName.maximumStemBytes + ".order".utf8.count)
            #expect(name.wholeMatch(of: /[A-Za-z0-9%._-]+~[0-9a-f]{16}\.order/) != nil, "\(name)")
        }
        #expect(OrderArchiveFileName.make(orderIdentifier: first) != OrderArchiveFileName.make(orderIdentifier: second))
        // Never half an escape before the hash.
        #expect(OrderArchiveFileName.make(orderIdentifier: escaped).wholeMatch(of: /(%2F)+~[0-9a-f]{16}\.order/) != nil)
    }

    @Test("No name has a separator, a control character or a leading dot, and none is . or ..")
    func namesAreSafe() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("./\\\0\t\n\r %~aZ9-_é😀\u{7F}\u{1B}")
        for _ in 0..<500 {
            let identifier = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let name = OrderArchiveFileName.make(orderIdentifier: identifier)
            #expect(!name.contains("/") && !name.contains("\\") && !name.hasPrefix("."), "\(identifier.debugDescription) → \(name)")
            #expect(name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }, "\(name)")
        }
    }

    // MARK: - Building

    @Test("A batch builds the good orders, each verifies, and reports the bad ones by origin and code")
    func goodAndBad() async throws {
        let inputs: [OrderBatchInput] = [
            OrderBatchInput(origin: .line(1), orderJSON: try Self.orderLine(["orderIdentifier": "A-1"])),
            OrderBatchInput(origin: .line(2), orderJSON: Array("{not json".utf8)),
            OrderBatchInput(origin: .line(3), orderJSON: try Self.orderLine(["orderIdentifier": "A-3", "status": "OnTheWay"])),
            OrderBatchInput(origin: .line(4), orderJSON: try Self.orderLine(["orderIdentifier": "../../etc/passwd"])),
            .unreadable(origin: .file("gone.json"), error: WalletOrdersError(.fileAccess, "Cannot read 'gone.json'.")),
            OrderBatchInput(origin: .line(6), orderJSON: try Self.orderLine(["orderIdentifier": "A-6"])),
        ]
        let results = try await Self.collect(try Self.batchBuilder().results(for: inputs))
        #expect(results.map(\.index) == [0, 1, 2, 3, 4, 5])
        #expect(results.map(\.origin) == inputs.map(\.origin))
        #expect(results.map { $0.fileName } == ["A-1.order", nil, nil, "%2E.%2F..%2Fetc%2Fpasswd.order", nil, "A-6.order"])
        #expect(results[1].error?.code == .validationFailed)
        #expect(results[1].report?.contains(ruleID: "json.syntax") == true)
        #expect(results[2].error?.code == .validationFailed)
        #expect(results[2].error?.message.contains("[schema.enum] 'OnTheWay'") == true, "\(results[2].error?.message ?? "")")
        #expect(results[4].error?.code == .fileAccess)
        for result in results {
            guard let archive = result.archive else { continue }
            let report = TestPKI.verifier.verify(archiveBytes: archive.bytes, subject: result.origin.description)
            #expect(report.errors.isEmpty, "\(report.diagnostics)")
            let files = try OrderArchive(bytes: archive.bytes).filePaths.sorted()
            #expect(files == ["backpack.png", "bottle.png", "logo.png", "manifest.json", "order.json", "signature", "socks.png"])
        }
    }

    @Test(
        "Each order goes through the intake as a single build does: one naming another order type is refused by the signer check before any signature, and a good one is what intake.prepare builds"
    )
    func throughTheIntake() async throws {
        let batch = try Self.batchBuilder()
        let intake = try #require(batch.intake)
        let signed = Mutex(0)
        var counting = intake
        counting.onStep = { step in if step == .signing { signed.withLock { $0 += 1 } } }
        var builder = batch
        builder.intake = counting
        let inputs = [
            OrderBatchInput(origin: .line(1), orderJSON: try Self.orderLine(["orderTypeIdentifier": "order.com.example.rival"])),
            OrderBatchInput(origin: .line(2), orderJSON: try Self.orderLine(["orderIdentifier": "I-2"])),
        ]
        let results = try await Self.collect(builder.results(for: inputs))
        #expect(results[0].error?.code == .validationFailed)
        #expect(results[0].report?.contains(ruleID: "signature.signer-order-type-mismatch") == true, "\(results[0].report?.diagnostics ?? [])")
        #expect(signed.withLock { $0 } == 1, "only the good order was signed")
        var files = try Self.template().files
        files["order.json"] = inputs[1].orderJSON
        let prepared = try intake.prepare(source: OrderSource(files: files), builder: batch.builder, signingTime: TestPKI.signingTime)
        #expect(results[1].archive?.bytes == prepared.taken?.built.bytes)
    }

    @Test("Without validation a malformed order still fails, as the builder's invalid-order")
    func noValidation() async throws {
        let results = try await Self.collect(
            try Self.batchBuilder(validate: false).results(for: [OrderBatchInput(origin: .line(7), orderJSON: Array("[]".utf8))]))
        #expect(results.count == 1)
        #expect(results[0].error?.code == .invalidOrder)
        #expect(results[0].report == nil)
    }

    @Test("A batch's archives are what a single build of the same source makes, whatever the concurrency")
    func matchesSingleBuilds() async throws {
        let inputs = try (1...6).map { OrderBatchInput(origin: .line($0), orderJSON: try Self.orderLine(["orderIdentifier": "R-\($0)"])) }
        let one = try await Self.collect(try Self.batchBuilder(concurrency: 1).results(for: inputs))
        let four = try await Self.collect(try Self.batchBuilder(concurrency: 4).results(for: inputs))
        #expect(one.map { $0.archive?.bytes } == four.map { $0.archive?.bytes })
        var files = try Self.template().files
        files["order.json"] = inputs[2].orderJSON
        let single = try OrderArchiveBuilder(identity: try Self.batchBuilder().builder.identity)
            .build(OrderSource(files: files), signingTime: TestPKI.signingTime)
        #expect(one[2].archive?.bytes == single.bytes)
    }

    /// An input that counts how many orders have been taken from it.
    struct CountingInputs: AsyncSequence, Sendable {
        let count: Int
        let line: [UInt8]
        /// Throws ``Broken`` instead of giving the order after this many.
        var failAfter: Int? = nil
        let pulled = Counter()

        struct Broken: Error, Equatable {}

        final class Counter: Sendable {
            let value = Mutex(0)
        }

        func makeAsyncIterator() -> Iterator { Iterator(owner: self) }

        struct Iterator: AsyncIteratorProtocol {
            let owner: CountingInputs
            var next = 0
            mutating func next() async throws -> OrderBatchInput? {
                if let failAfter = owner.failAfter, next == failAfter { throw Broken() }
                guard next < owner.count else { return nil }
                next += 1
                owner.pulled.value.withLock { $0 += 1 }
                // Each line has its own identifier, like a real batch.
                var bytes = owner.line
                let marker = Array("STREAM-ID".utf8)
                if let range = bytes.firstRange(of: marker) { bytes.replaceSubrange(range, with: Array("S-\(next)".utf8)) }
                return OrderBatchInput(origin: .line(next), orderJSON: bytes)
            }
        }
    }

    @Test("2,000 orders stream through with never more than the limit in flight")
    func boundedInFlight() async throws {
        let limit = 3
        let inputs = CountingInputs(count: 2_000, line: try Self.orderLine(["orderIdentifier": "STREAM-ID"]))
        let results = try Self.batchBuilder(validate: false, concurrency: limit).results(for: inputs)
        var consumed = 0
        var indexes = Set<Int>()
        var maximumAhead = 0
        for try await result in results {
            consumed += 1
            indexes.insert(result.index)
            #expect(result.error == nil)
            // Pulled from the input but not yet handed to us: at most `limit`, the one just taken included.
            let ahead = inputs.pulled.value.withLock { $0 } - consumed + 1
            maximumAhead = max(maximumAhead, ahead)
            #expect(ahead <= limit)
            #expect(results.statistics.inFlight <= limit)
            if consumed % 500 == 0 { try await Task.sleep(for: .milliseconds(20)) }  // a slow consumer does not let work pile up
        }
        #expect(consumed == 2_000)
        #expect(indexes == Set(0..<2_000))
        #expect(results.statistics.peakInFlight == limit)
        #expect(results.statistics.finished == 2_000)
        #expect(maximumAhead == limit)
    }

    @Test("An array of many orders goes to the tasks 16 at a time, still bounded, every order once and as built alone")
    func chunkedSynchronousInputs() async throws {
        let line = try Self.orderLine(["orderIdentifier": "CHUNK-ID"])
        func input(_ number: Int) -> OrderBatchInput {
            var bytes = line
            if let range = bytes.firstRange(of: Array("CHUNK-ID".utf8)) { bytes.replaceSubrange(range, with: Array("C-\(number)".utf8)) }
            return OrderBatchInput(origin: .line(number + 1), orderJSON: bytes)
        }
        let inputs = (0..<600).map(input)
        let builder = try Self.batchBuilder(validate: false, concurrency: 2)
        #expect(builder.results(for: Array(inputs.prefix(20))).inputsPerTask == 1)  // few orders: one a task
        #expect(builder.results(for: CountingInputs(count: 600, line: line)).inputsPerTask == 1)  // asynchronous: one a task
        let results = builder.results(for: inputs)
        #expect(results.inputsPerTask == 16)
        var archives: [Int: [UInt8]] = [:]
        for try await result in results {
            #expect(results.statistics.inFlight <= 2 * 16)
            #expect(archives[result.index] == nil)
            archives[result.index] = try #require(result.archive?.bytes)
        }
        #expect(archives.keys.sorted() == Array(0..<600))
        #expect(results.statistics.peakInFlight == 2 * 16)
        for index in [0, 17, 599] {
            #expect(builder.build(inputs[index], index: index).archive?.bytes == archives[index])
        }
    }

    @Test("An input that fails in the middle of a task's orders: every order read before it is built and handed out, then its error")
    func inputFailsMidTask() async throws {
        let inputs = CountingInputs(count: 100, line: try Self.orderLine(["orderIdentifier": "STREAM-ID"]), failAfter: 20)
        let results = try Self.batchBuilder(validate: false, concurrency: 2).results(for: inputs, inputsPerTask: 8)
        var indexes: [Int] = []
        await #expect(throws: CountingInputs.Broken()) {
            for try await result in results {
                #expect(result.error == nil)
                indexes.append(result.index)
            }
        }
        #expect(indexes.sorted() == Array(0..<20))
        #expect(inputs.pulled.value.withLock { $0 } == 20)
    }

    @Test("Cancelling the consumer ends the batch with CancellationError before another task's worth is read")
    func cancelledConsumer() async throws {
        let inputs = CountingInputs(count: 1_000, line: try Self.orderLine(["orderIdentifier": "STREAM-ID"]))
        let results = try Self.batchBuilder(validate: false, concurrency: 2).results(for: inputs, inputsPerTask: 8)
        let consumer = Task {
            var taken = 0
            for try await _ in results {
                taken += 1
                if taken == 1 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return taken
        }
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(inputs.pulled.value.withLock { $0 } == 2 * 8)
    }

    @Test("A huge maximumConcurrency (--jobs 2^60) bounds the batch without overflowing", arguments: [Int.max, 1 << 60])
    func hugeConcurrency(concurrency: Int) async throws {
        let line = try Self.orderLine(["orderIdentifier": "STREAM-ID"])
        let builder = try Self.batchBuilder(validate: false, concurrency: concurrency)
        var built = 0
        for try await result in builder.results(for: CountingInputs(count: 20, line: line), inputsPerTask: 8) {
            #expect(result.error == nil)
            built += 1
        }
        #expect(built == 20)
        let folder = try TemporaryFolder.ofTest
        let archive = try folder.write(try SampleBuilds.build(Self.sample).bytes, to: "good.order")
        let validator = try OrderValidator(verifier: TestPKI.verifier)
        var reports = 0
        for try await result in validator.validateBatch(Array(repeating: archive, count: 40), maximumConcurrency: concurrency) {
            #expect(result.report.isValid)
            reports += 1
        }
        #expect(reports == 40)
    }

    // MARK: - Inputs

    @Test("JSON Lines: blank lines skipped, CRLF and a last line without newline read, line numbers kept")
    func jsonLines() async throws {
        let folder = try TemporaryFolder.ofTest
        let text = "{\"a\":1}\n\n   \t\n{\"b\":2}\r\n\n{\"c\":3}"
        let url = try folder.write(Array(text.utf8), to: "orders.jsonl")
        var seen: [(String, String)] = []
        for try await input in try OrderBatchInputs.jsonLines(at: url) {
            seen.append((input.origin.description, String(decoding: input.orderJSON, as: UTF8.self)))
        }
        #expect(seen.map(\.0) == ["line 1", "line 4", "line 6"])
        #expect(seen.map(\.1) == ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"])
    }

    @Test("JSON Lines: a line over the size limit becomes an unreadable input; the next line still reads")
    func overlongLine() async throws {
        let folder = try TemporaryFolder.ofTest
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: OrderBatchInputs.maximumLineBytes + 1)
        bytes += Array("\n{\"ok\":true}\n".utf8)
        let url = try folder.write(bytes, to: "big.jsonl")
        var inputs: [OrderBatchInput] = []
        for try await input in try OrderBatchInputs.jsonLines(at: url) { inputs.append(input) }
        #expect(inputs.count == 2)
        #expect(inputs[0].origin == .line(1))
        #expect(inputs[0].readFailure?.code == .bundleTooLarge)
        #expect(inputs[0].orderJSON.isEmpty)
        #expect(inputs[1].origin == .line(2))
        #expect(inputs[1].orderJSON == Array("{\"ok\":true}".utf8))
    }

    @Test("A missing JSON Lines file is a file-access error")
    func missingJSONLines() {
        #expect(throws: WalletOrdersError(.fileAccess, "")) {
            _ = try OrderBatchInputs.jsonLines(at: URL(fileURLWithPath: "/nonexistent/orders.jsonl"))
        }
    }

    @Test("A folder gives its *.json files in name order, skipping other and hidden files")
    func jsonFiles() async throws {
        let folder = try TemporaryFolder.ofTest
        for name in ["b.json", "a.json", ".hidden.json", "notes.txt", "c.json"] {
            try folder.write(Array("{\"name\":\"\(name)\"}".utf8), to: name)
        }
        try FileManager.default.createDirectory(at: folder.file("d.json"), withIntermediateDirectories: true)
        var seen: [String] = []
        var failures: [String] = []
        for try await input in try OrderBatchInputs.jsonFiles(in: folder.url) {
            seen.append(input.origin.description)
            if input.readFailure != nil { failures.append(input.origin.description) }
        }
        #expect(seen == ["a.json", "b.json", "c.json", "d.json"])
        #expect(failures == ["d.json"])
    }

    @Test("A template folder drops its order.json and junk, and keeps the images")
    func template() throws {
        let folder = try TemporaryFolder.ofTest
        try FileManager.default.copyItem(at: Repository.sample(Self.sample), to: folder.file("template"))
        try folder.write([1], to: "template/.DS_Store")
        let template = try OrderBatchTemplate(directory: folder.file("template"))
        #expect(template.files.keys.sorted() == ["backpack.png", "bottle.png", "logo.png", "socks.png"])
        #expect(template.skippedFiles.map(\.path) == [".DS_Store", "order.json"])
    }

    // MARK: - Validating

    @Test("validateBatch reports every archive and folder once, by index, missing ones as unreadable")
    func validateBatch() async throws {
        let folder = try TemporaryFolder.ofTest
        let good = try folder.write(try SampleBuilds.build(Self.sample).bytes, to: "good.order")
        var bytes = try SampleBuilds.build(Self.sample).bytes
        bytes[bytes.count / 2] ^= 0xFF
        let damaged = try folder.write(bytes, to: "damaged.order")
        let urls = [good, damaged, folder.file("missing.order"), Repository.sample("store-pickup"), good]
        let validator = try OrderValidator(verifier: TestPKI.verifier)
        var reports: [Int: ValidationReport] = [:]
        for try await result in validator.validateBatch(urls, maximumConcurrency: 2) {
            #expect(reports[result.index] == nil)
            #expect(result.url == urls[result.index])
            reports[result.index] = result.report
        }
        #expect(reports.keys.sorted() == [0, 1, 2, 3, 4])
        #expect(reports[0]?.isValid == true)
        #expect(reports[1]?.isValid == false)
        #expect(reports[2]?.contains(ruleID: "file.unreadable") == true)
        #expect(reports[3]?.isValid == true)
        #expect(reports[3]?.subject == Repository.sample("store-pickup").relativePath)
        #expect(reports[4] == reports[0])
    }
}
