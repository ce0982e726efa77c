import Foundation
import Testing
import WalletOrdersTestSupport

/// Issue 10, finding 5: inputs are measured before they are read. Sparse 2 GiB and 8 GiB files
/// (no disk used) go to every command that reads an archive or a source file; each must refuse
/// within seconds, say why, and stay far below the file's size in memory. Peak memory is
/// measured from outside, by Python's `getrusage(RUSAGE_CHILDREN)` around the one child.
@Suite(.temporaryFolder) struct HugeInputEndToEndTests {
    /// The most a command may use (the binary alone is ~30 MB resident).
    static let memoryLimitKB = 300 * 1024

    struct Measured {
        var status: Int32
        var output: String
        var seconds: Double
        var peakKB: Int
    }

    /// Runs the CLI under Python, returning its exit status, output and peak RSS.
    static func measure(_ arguments: [String]) async throws -> Measured {
        let script = """
            import json, resource, subprocess, sys, time
            start = time.monotonic()
            done = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            print(json.dumps({"status": done.returncode, "seconds": time.monotonic() - start, "peak_kb": usage.ru_maxrss,
                              "output": (done.stdout + done.stderr).decode("utf-8", "replace")}))
            """
        let result = try await ExternalProgram.python(script, [try WalletOrdersBinary.url().path] + arguments, timeout: 180)
        let object = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any], "\(result)")
        return Measured(
            status: Int32(try #require(object["status"] as? Int)), output: try #require(object["output"] as? String),
            seconds: try #require(object["seconds"] as? Double), peakKB: try #require(object["peak_kb"] as? Int))
    }

    static func sparseFile(_ folder: TemporaryFolder, _ name: String, gibibytes: Int) async throws -> URL {
        let url = folder.file(name)
        let result = try await ExternalProgram.run(tool: "truncate", ["-s", "\(gibibytes)G", url.path])
        #expect(result.status == 0, "\(result)")
        return url
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: @Sendable (_ huge: String, _ folder: TemporaryFolder) async throws -> [String]
        var expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(name: "verify", arguments: { huge, _ in ["verify", huge] }, expected: "error[file.too-large]"),
        .init(name: "validate", arguments: { huge, _ in ["validate", huge] }, expected: "error[file.too-large]"),
        .init(name: "inspect", arguments: { huge, _ in ["inspect", huge] }, expected: "is 2.15 GB"),
        .init(
            name: "store save", arguments: { huge, folder in ["store", "save", huge, "--store", folder.file("orders.sqlite").path] },
            expected: "is 2.15 GB, over the limit"),
        .init(
            name: "build (a source file)",
            arguments: { huge, folder in
                let source = folder.file("source")
                try FileManager.default.copyItem(at: Repository.shippedEcommerce, to: source)
                try FileManager.default.moveItem(atPath: huge, toPath: source.appendingPathComponent("huge.png").path)
                let certs = try await SharedFixtures.certs.get()
                return ["build", source.path, "--out", folder.file("out.order").path] + certs.signingArguments
            },
            expected: "huge.png"),
    ]

    @Test("A 2 GiB file is refused before it is read: specific message, seconds, bounded memory", arguments: cases)
    func hugeFileRefused(_ testCase: Case) async throws {
        let folder = try TemporaryFolder.ofTest
        let huge = try await Self.sparseFile(folder, "huge.order", gibibytes: 2)
        let measured = try await Self.measure(try await testCase.arguments(huge.path, folder))
        #expect(measured.status == 1, "\(measured.output)")
        #expect(measured.output.contains(testCase.expected), "\(measured.output)")
        #expect(measured.output.contains("8.39 MB") || measured.output.contains("5.00 MB"), "names the limit: \(measured.output)")
        #expect(measured.peakKB < Self.memoryLimitKB, "peak \(measured.peakKB) kB")
        #expect(measured.seconds < 20, "took \(measured.seconds) s")
    }

    @Test("validate over a folder holding a 2 GiB and an 8 GiB archive reports both, in bounded memory")
    func folderOfHugeFiles() async throws {
        let folder = try TemporaryFolder.ofTest
        let archives = folder.file("archives")
        try FileManager.default.createDirectory(at: archives, withIntermediateDirectories: true)
        _ = try await Self.sparseFile(folder, "archives/two.order", gibibytes: 2)
        _ = try await Self.sparseFile(folder, "archives/eight.order", gibibytes: 8)
        let measured = try await Self.measure(["validate", archives.path])
        #expect(measured.status == 1, "\(measured.output)")
        #expect(measured.output.components(separatedBy: "error[file.too-large]").count == 3, "\(measured.output)")
        #expect(measured.output.contains("is 8.59 GB"), "\(measured.output)")
        #expect(measured.peakKB < Self.memoryLimitKB, "peak \(measured.peakKB) kB")
        #expect(measured.seconds < 20, "took \(measured.seconds) s")
    }

    @Test("An endless stream (a FIFO fed from /dev/zero) is cut at the limit, not read to the end")
    func endlessFIFO() async throws {
        let folder = try TemporaryFolder.ofTest
        let fifo = folder.file("stream.order")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // A writer that never ends on its own: the reader must stop and close.
        let writer = try await BackgroundProgram(shell: "cat /dev/zero > '\(fifo.path)'")
        defer { writer.kill() }
        let measured = try await Self.measure(["verify", fifo.path])
        #expect(measured.status == 1, "\(measured.output)")
        #expect(measured.output.contains("error[file.too-large]") && measured.output.contains("holds more than"), "\(measured.output)")
        #expect(measured.peakKB < Self.memoryLimitKB, "peak \(measured.peakKB) kB")
    }
}
