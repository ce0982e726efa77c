public import Foundation
import Subprocess
import SystemPackage

/// Renders a page to PNG with headless Chromium (Debian's `chromium`), for `preview --png`.
public struct HeadlessChromium: Sendable {
    /// Chromium isn't installed (or `CHROMIUM` names nothing runnable).
    public struct NotInstalled: Error, Sendable, CustomStringConvertible {
        public var description: String { "Chromium is not installed; --png renders the page with headless Chromium." }
        /// How to get it.
        public static let hint =
            "Install it (Debian/Ubuntu: sudo apt-get install chromium; `make setup` does), or set CHROMIUM to its path."
    }

    /// Chromium ran but gave no picture.
    public struct Failed: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The executable.
    public let executable: URL

    /// `$CHROMIUM`, else the first of `chromium`, `chromium-browser`, `google-chrome` on `PATH`.
    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) throws(NotInstalled) -> HeadlessChromium {
        if let named = environment["CHROMIUM"], !named.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: named) else { throw NotInstalled() }
            return HeadlessChromium(executable: URL(fileURLWithPath: named))
        }
        let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return HeadlessChromium(executable: URL(fileURLWithPath: "\(folder)/\(name)"))
            }
        }
        throw NotInstalled()
    }

    public init(executable: URL) {
        self.executable = executable
    }

    /// The flags every run takes: headless, no GPU, no first-run work, nothing from the network,
    /// and no sandbox when running as root (Chromium refuses to start as root otherwise).
    func arguments(width: Int, height: Int, profile: URL) -> [String] {
        var arguments = [
            "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=\(profile.path)",
            "--window-size=\(width),\(height)", "--force-device-scale-factor=2",
        ]
        if geteuid() == 0 { arguments.append("--no-sandbox") }
        return arguments
    }

    /// A PNG of the whole page at `width` CSS pixels (twice that in device pixels, as on an
    /// iPhone). Two runs: one measures the page's height, one takes the picture.
    public func screenshot(html: String, width: Int = 390) async throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-orders-preview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = folder.appendingPathComponent("profile")
        // The measuring copy may run one inline script that writes the height into the title.
        let measuring = folder.appendingPathComponent("measure.html")
        try Data(Self.measuringPage(html, nonce: UUID().uuidString.filter(\.isHexDigit)).utf8).write(to: measuring)
        let dump = try await run(arguments(width: width, height: 800, profile: profile) + ["--dump-dom", measuring.absoluteString])
        guard let range = dump.range(of: "<title>height:"), let end = dump[range.upperBound...].firstIndex(of: "<"),
            let height = Int(dump[range.upperBound..<end])
        else { throw Failed(description: "Chromium did not measure the page.") }
        let page = folder.appendingPathComponent("page.html")
        try Data(html.utf8).write(to: page)
        let png = folder.appendingPathComponent("page.png")
        let shotHeight = min(max(height, 200), Self.maximumHeight)
        _ = try await run(arguments(width: width, height: shotHeight, profile: profile) + ["--screenshot=\(png.path)", page.absoluteString])
        guard let bytes = try? Data(contentsOf: png), !bytes.isEmpty else {
            throw Failed(description: "Chromium wrote no screenshot.")
        }
        return Array(bytes)
    }

    /// Runs Chromium, returns its stdout; fails after 60 seconds or on a non-zero exit.
    /// The tallest screenshot taken, in CSS pixels (at 2x: 390 × 16384 × 4 bytes × 4 ≈ 100 MB of
    /// pixels): a page of thousands of line items is cut there rather than exhausting memory.
    package static let maximumHeight = 16_384

    /// The page with one script that writes its height into the title, allowed by a nonce of
    /// its own: the policy never allows inline scripts in general ('unsafe-inline'), so markup
    /// that got into the page still could not run.
    package static func measuringPage(_ html: String, nonce: String) -> String {
        let script = "<script nonce=\"\(nonce)\">document.title = 'height:' + document.documentElement.scrollHeight;</script>"
        var page = html
        if let policy = page.range(of: "style-src 'unsafe-inline'") {
            page.replaceSubrange(policy, with: "style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'")
        }
        if let end = page.range(of: "</body>", options: .backwards) {
            page.replaceSubrange(end, with: script + "</body>")
        }
        return page
    }

    private func run(_ arguments: [String]) async throws -> String {
        // Chromium is awaited, not waited for on a thread; past 60 s the run is cancelled, and
        // Subprocess's teardown ends it (SIGTERM, then SIGKILL after 5 s).
        let options: PlatformOptions = {
            var options = PlatformOptions()
            options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(5))]
            return options
        }()
        let executable = executable
        let status = try await withThrowingTaskGroup(of: (TerminationStatus, String)?.self) { group in
            group.addTask {
                let result = try await Subprocess.run(
                    .path(FilePath(executable.path)), arguments: Arguments(arguments), platformOptions: options,
                    output: .string(limit: Self.outputLimit), error: .discarded)
                return (result.terminationStatus, result.standardOutput)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let (termination, output) = status else { throw Failed(description: "Chromium did not finish within 60 seconds.") }
        guard termination.isSuccess else { throw Failed(description: "Chromium exited with \(termination).") }
        return output
    }

    /// The most of Chromium's stdout read (the measuring run's DOM): the page's own size is bounded
    /// by the preview long before this.
    static let outputLimit = 64 * 1024 * 1024
}
