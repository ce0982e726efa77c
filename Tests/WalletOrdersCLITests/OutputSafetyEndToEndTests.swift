import Foundation
import Testing
import WalletOrdersTestSupport

/// `--out` never destroys what is at the path: devices and FIFOs are written through (as
/// `cat > PATH` would), symbolic links stay links, regular files are replaced atomically, and
/// the source folder being built is never written into.
@Suite(.temporaryFolder) struct OutputSafetyEndToEndTests {
    // MARK: - Fixtures

    /// The file type bits of `path` itself (`lstat`), or `nil` when there is nothing there.
    static func type(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    /// A character device like `/dev/null` (`1, 3`) or `/dev/full` (`1, 7`). As root, a private
    /// node made with mknod in `folder` (so a regression can't replace the machine's own
    /// /dev/null); otherwise the real one, which an unprivileged process can't replace.
    static func device(_ name: String, minor: UInt32, in folder: TemporaryFolder) throws -> String {
        guard geteuid() == 0 else { return "/dev/" + name }
        let path = folder.file(name).path
        let device = dev_t(1 << 8 | minor)  // makedev(1, minor) in glibc's encoding (a macro Swift can't call)
        guard mknod(path, S_IFCHR | 0o666, device) == 0 else {
            throw FixtureError(description: "mknod \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }

    /// A FIFO in `folder`.
    static func fifo(_ name: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.file(name).path
        guard mkfifo(path, 0o644) == 0 else { throw FixtureError(description: "mkfifo \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    /// Runs `body` while `cat FIFO` copies what arrives into a file; returns what `body` returned and
    /// the bytes the reader got. A reader still waiting 10 s after `body` is killed.
    static func reading<T>(_ fifo: String, _ body: () async throws -> T) async throws -> (T, Data) {
        let folder = try TemporaryFolder("fifo-reader")
        defer { folder.remove() }
        let received = folder.file("received")
        let reader = try await BackgroundProgram(tool: "cat", [fifo], standardOutput: received)
        let value = try await body()
        _ = try? await reader.wait(timeout: 10)
        return (value, try Data(contentsOf: received))
    }

    static func build(out: String, source: URL = Repository.shippedEcommerce, _ extra: [String] = []) async throws -> ProgramResult {
        try await CLI.run(
            ["build", source.path, "--out", out, "--signing-time", SharedFixtures.signingTimeText]
                + (try await SharedFixtures.certs.get().signingArguments) + extra)
    }

    /// The archive `build` makes of the shipped sample (reproducible, so any run gives these bytes).
    static func expectedArchive() async throws -> Data { try Data(contentsOf: try await SharedFixtures.archive.get()) }

    /// A store holding the shipped sample; `body` gets it and the stored archive's bytes.
    static func withStore(_ body: (StoreUnderTest, Data) async throws -> Void) async throws {
        let store = try StoreUnderTest("output-safety")
        defer { store.remove() }
        let archive = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        let saved = try await store.save([archive])
        try #require(saved.result.status == 0, "\(saved.result)")
        try await body(store, try Data(contentsOf: archive))
    }

    static let order = [Repository.shippedOrderTypeIdentifier, Repository.shippedOrderIdentifier]

    // MARK: - Devices

    @Test("build --out /dev/full fails with 'no space' and the device stays a device")
    func buildToFullDevice() async throws {
        let folder = try TemporaryFolder.ofTest
        let full = try Self.device("full", minor: 7, in: folder)
        let result = try await Self.build(out: full)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.lowercased().contains("no space left on device"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("error: "))
        #expect(Self.type(full) == S_IFCHR)
    }

    @Test("store get --out /dev/full fails with 'no space' and the device stays a device")
    func storeGetToFullDevice() async throws {
        try await Self.withStore { store, _ in
            let full = try Self.device("full", minor: 7, in: store.folder)
            let result = try await store.run("get", Self.order + ["--out", full])
            #expect(result.status == 1, "\(result)")
            #expect(result.errorOutput.lowercased().contains("no space left on device"), "\(result.errorOutput)")
            #expect(Self.type(full) == S_IFCHR)
        }
    }

    @Test("build and store get --out /dev/null succeed and the device stays a device")
    func nullDevice() async throws {
        let folder = try TemporaryFolder.ofTest
        let null = try Self.device("null", minor: 3, in: folder)
        let result = try await Self.build(out: null)
        #expect(result.status == 0, "\(result)")
        #expect(Self.type(null) == S_IFCHR)
        try await Self.withStore { store, _ in
            let got = try await store.run("get", Self.order + ["--out", null])
            #expect(got.status == 0, "\(got)")
            #expect(Self.type(null) == S_IFCHR)
        }
    }

    // MARK: - FIFOs and symbolic links

    @Test("build --out FIFO: the reader gets the exact archive and the FIFO stays a FIFO")
    func buildToFIFO() async throws {
        let folder = try TemporaryFolder.ofTest
        let fifo = try Self.fifo("pipe", in: folder)
        let (result, received) = try await Self.reading(fifo) { try await Self.build(out: fifo) }
        #expect(result.status == 0, "\(result)")
        await #expect(received == (try Self.expectedArchive()))
        #expect(Self.type(fifo) == S_IFIFO)
    }

    @Test("store get --out FIFO: the reader gets the stored archive and the FIFO stays a FIFO")
    func storeGetToFIFO() async throws {
        try await Self.withStore { store, stored in
            let fifo = try Self.fifo("pipe", in: store.folder)
            let (result, received) = try await Self.reading(fifo) { try await store.run("get", Self.order + ["--out", fifo]) }
            #expect(result.status == 0, "\(result)")
            #expect(received == stored)
            #expect(Self.type(fifo) == S_IFIFO)
        }
    }

    @Test("A symlink to a device or a FIFO stays a symlink, and what it points to stays what it was")
    func symlinksToSpecialFiles() async throws {
        let folder = try TemporaryFolder.ofTest
        let null = try Self.device("null", minor: 3, in: folder)
        let toNull = folder.file("to-null.order").path
        try FileManager.default.createSymbolicLink(atPath: toNull, withDestinationPath: null)
        let result = try await Self.build(out: toNull)
        #expect(result.status == 0, "\(result)")
        #expect(Self.type(toNull) == S_IFLNK)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: toNull) == null)
        #expect(Self.type(null) == S_IFCHR)

        let fifo = try Self.fifo("pipe", in: folder)
        let toFIFO = folder.file("to-pipe.order").path
        try FileManager.default.createSymbolicLink(atPath: toFIFO, withDestinationPath: fifo)
        try await Self.withStore { store, stored in
            let (got, received) = try await Self.reading(fifo) { try await store.run("get", Self.order + ["--out", toFIFO]) }
            #expect(got.status == 0, "\(got)")
            #expect(received == stored)
            #expect(Self.type(toFIFO) == S_IFLNK)
            #expect(Self.type(fifo) == S_IFIFO)
        }
    }

    @Test("A symlink to /proc/self/fd/1 writes to the command's standard output (a pipe) and stays a link")
    func symlinkToStandardOutput() async throws {
        try await Self.withStore { store, stored in
            let link = store.folder.file("stdout.order").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/fd/1")
            let captured = store.folder.file("captured").path
            let result = try await ExternalProgram.run(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", #"exec "$0" "$@" | cat > "$CAPTURED""#, try WalletOrdersBinary.url().path, "store", "get"]
                    + Self.order + ["--out", link, "--store", store.url.path],
                environment: CLI.environment(["CAPTURED": captured]))
            #expect(result.status == 0, "\(result)")
            // The archive, then the "Wrote … bytes" line (the command's stdout is the same pipe).
            #expect(try Data(contentsOf: URL(fileURLWithPath: captured)).starts(with: stored))
            #expect(Self.type(link) == S_IFLNK)
        }
    }

    @Test("A symlink to a regular file: the file it points to gets the archive; the link stays a link")
    func symlinkToRegularFile() async throws {
        let folder = try TemporaryFolder.ofTest
        let target = try folder.write(Array("old".utf8), to: "kept/target.order").path
        let link = folder.file("link.order").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try await Self.build(out: link)
        #expect(result.status == 0, "\(result)")
        #expect(Self.type(link) == S_IFLNK)
        #expect(Self.type(target) == S_IFREG)
        await #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == (try Self.expectedArchive()))
    }

    // MARK: - Standard output

    @Test("build --out - writes the archive to standard output, which Python's zipfile reads")
    func buildToStandardOutput() async throws {
        let result = try await Self.build(out: "-")
        #expect(result.status == 0, "\(result)")
        await #expect(result.standardOutput == (try Self.expectedArchive()))
        #expect(result.errorOutput.contains("built standard output: "), "the summary goes to stderr: \(result.errorOutput)")
        let folder = try TemporaryFolder.ofTest
        let file = try folder.write(result.standardOutput, to: "from-stdout.order")
        let listed = try await ExternalProgram.python(
            "import sys, zipfile; print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))", [file.path])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.output.contains("'order.json'") && listed.output.contains("'signature'"), "\(listed.output)")
    }

    @Test("store get --out - writes the stored archive to standard output")
    func storeGetToStandardOutput() async throws {
        try await Self.withStore { store, stored in
            let result = try await store.run("get", Self.order + ["--out", "-"])
            #expect(result.status == 0, "\(result)")
            #expect(result.standardOutput == stored)
        }
    }

    @Test("--out - can't share standard output with --json or --order-json")
    func standardOutputConflicts() async throws {
        let build = try await Self.build(out: "-", ["--json"])
        #expect(build.status == 64, "\(build)")
        #expect(build.errorOutput.contains("standard output"), "\(build.errorOutput)")
        try await Self.withStore { store, _ in
            let got = try await store.run("get", Self.order + ["--out", "-", "--order-json"])
            #expect(got.status == 64, "\(got)")
        }
    }

    // MARK: - The source folder, folders, missing folders

    @Test(
        "build refuses to write into the folder it builds, however the path is spelled",
        arguments: [
            "order.json", "x.order", "../SRC/order.json", "LINK/x.order", "LINK/order.json", ".",
        ])
    func sourceFolderIsRefused(spelling: String) async throws {
        let folder = try TemporaryFolder.ofTest
        let source = folder.file("SRC")
        try FileManager.default.copyItem(at: Repository.shippedEcommerce, to: source)
        try FileManager.default.createSymbolicLink(atPath: folder.file("LINK").path, withDestinationPath: source.path)
        let before = try Data(contentsOf: source.appendingPathComponent("order.json"))
        let listing = try FileManager.default.contentsOfDirectory(atPath: source.path).sorted()
        let out = spelling.hasPrefix("LINK/") ? folder.file(spelling).path : source.path + "/" + spelling
        let result = try await Self.build(out: out, source: source)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("is inside the source folder"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("hint: "), "\(result.errorOutput)")
        #expect(try Data(contentsOf: source.appendingPathComponent("order.json")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: source.path).sorted() == listing)
    }

    @Test("--out an existing folder says it is a folder and how to name a file")
    func outIsAFolder() async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await Self.build(out: folder.url.path)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.errorOutput.contains("'\(folder.url.path)' is a folder; give a file name, e.g. '\(folder.url.path)/NAME.order'"),
            "\(result.errorOutput)")
        try await Self.withStore { store, _ in
            let got = try await store.run("get", Self.order + ["--out", store.folder.url.path])
            #expect(got.status == 1, "\(got)")
            #expect(got.errorOutput.contains("is a folder; give a file name"), "\(got.errorOutput)")
        }
    }

    @Test("--out in a folder that doesn't exist names that folder")
    func outFolderMissing() async throws {
        let folder = try TemporaryFolder.ofTest
        let missing = folder.file("nodir").path
        let result = try await Self.build(out: missing + "/x.order")
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("the folder '\(missing)' doesn't exist"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("build --batch --out: an existing file or '-' is refused with a message, not a Foundation error")
    func batchOutFolder() async throws {
        let folder = try TemporaryFolder.ofTest
        let input = try folder.write(Array("\n".utf8), to: "orders.jsonl")
        let file = try folder.write(Array("keep".utf8), to: "a-file")
        let certs = try await SharedFixtures.certs.get()
        let onFile = try await CLI.run(["build", "--batch", input.path, "--out", file.path] + certs.signingArguments)
        #expect(onFile.status == 1, "\(onFile)")
        #expect(onFile.errorOutput.contains("'\(file.path)' is not a folder"), "\(onFile.errorOutput)")
        #expect(try Data(contentsOf: file) == Data("keep".utf8))
        let onDash = try await CLI.run(["build", "--batch", input.path, "--out", "-"] + certs.signingArguments)
        #expect(onDash.status == 64, "\(onDash)")
        #expect(onDash.errorOutput.contains("--out is a folder"), "\(onDash.errorOutput)")
    }

    @Test("build --batch --out inside --template is refused; the template is unchanged")
    func batchOutInsideTemplate() async throws {
        let folder = try TemporaryFolder.ofTest
        let template = folder.file("template")
        try FileManager.default.copyItem(at: Repository.shippedEcommerce, to: template)
        let listing = try FileManager.default.contentsOfDirectory(atPath: template.path).sorted()
        let line = try BatchEndToEndTests.orderLine(["orderIdentifier": "T-1"])
        let input = try folder.write(Array((line + "\n").utf8), to: "orders.jsonl")
        let result = try await CLI.run(
            ["build", "--batch", input.path, "--template", template.path, "--out", template.path + "/../template/out"]
                + (try await SharedFixtures.certs.get().signingArguments))
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("is inside the template folder"), "\(result.errorOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: template.path).sorted() == listing)
    }

    @Test("build --batch into an existing FIFO name writes through it; the FIFO stays")
    func batchWritesThroughFIFO() async throws {
        let folder = try TemporaryFolder.ofTest
        let certs = try await SharedFixtures.certs.get()
        let line = try BatchEndToEndTests.orderLine(["orderIdentifier": "F-1"])
        let input = try folder.write(Array((line + "\n").utf8), to: "orders.jsonl")
        let out = folder.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let fifo = try Self.fifo("out/F-1.order", in: folder)
        let (result, received) = try await Self.reading(fifo) {
            try await CLI.run(
                [
                    "build", "--batch", input.path, "--template", Repository.shippedEcommerce.path, "--out", out.path, "--quiet",
                    "--signing-time", SharedFixtures.signingTimeText,
                ] + certs.signingArguments)
        }
        #expect(result.status == 0, "\(result)")
        #expect(received.starts(with: Array("PK".utf8)) && received.count > 1_000)
        #expect(Self.type(fifo) == S_IFIFO)
    }
}
