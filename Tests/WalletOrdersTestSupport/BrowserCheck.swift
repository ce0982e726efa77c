public import Foundation

/// Debian's headless Chromium driven by `browser_check.py` (beside this file) over the DevTools
/// protocol, at an iPhone's width: what a page shows, loads and logs, read by tests.
public enum BrowserCheck {
    /// The script, `Tests/WalletOrdersTestSupport/browser_check.py`.
    public static let script = Repository.tests.appendingPathComponent("WalletOrdersTestSupport/browser_check.py")

    /// Chromium's path, or `nil` when it isn't installed (`.ci/setup` installs it).
    public static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// What the script reports.
    public struct Report: Decodable, Sendable {
        public struct Barcode: Decodable, Sendable {
            public var format: String
            public var zbar: [String]
            public var zxing: [String]
        }

        public var text: String
        public var scrollWidth: Int
        public var clientWidth: Int
        public var brokenImages: Int
        public var barcodes: [Barcode]
        public var console: [String]
        public var requests: [String]
        public var failed: [String]
        /// "URL REASON" for each load Chromium refused itself ("csp": by the page's policy).
        public var blocked: [String]?
        /// Each `--probe`'s value, as JSON text.
        public var probes: [String: String]?

        /// The value of the probe `name`, decoded from its JSON (`nil` when it is JSON's null or absent).
        public func probe(_ name: String) -> Any? {
            guard let text = probes?[name], let data = text.data(using: .utf8) else { return nil }
            let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return value is NSNull ? nil : value
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Loads `page` (a file path or an http URL) and reports on it.
    ///
    /// - Parameters:
    ///   - probes: JavaScript expressions by name, evaluated once the page has loaded.
    ///   - userAgent: The `User-Agent` the browser sends and shows (`navigator.userAgent`).
    ///   - acceptLanguage: The `Accept-Language` the browser sends.
    ///   - colorScheme: `light` or `dark`: the `prefers-color-scheme` the page sees.
    ///   - extraArguments: More of the script's arguments (`--screenshot FILE`, `--edit …`).
    public static func run(
        _ page: String, width: Int = 390, probes: [String: String] = [:], userAgent: String? = nil, acceptLanguage: String? = nil,
        colorScheme: String? = nil, barcodeFolder: String? = nil, extraArguments: [String] = []
    ) async throws -> Report {
        guard let chromium else { throw Failure(description: "Chromium is not installed: run .ci/setup (Debian's chromium package)") }
        var arguments = [script.path, page, "--chromium", chromium, "--width", "\(width)"]
        if let barcodeFolder { arguments += ["--barcode-folder", barcodeFolder] }
        for (name, expression) in probes.sorted(by: { $0.key < $1.key }) { arguments += ["--probe", "\(name)=\(expression)"] }
        if let userAgent { arguments += ["--user-agent", userAgent] }
        if let acceptLanguage { arguments += ["--accept-language", acceptLanguage] }
        if let colorScheme { arguments += ["--color-scheme", colorScheme] }
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/python3"), arguments + extraArguments, timeout: 120 * TestTiming.scale)
        guard result.status == 0 else { throw Failure(description: "browser_check.py failed: \(result)") }
        return try JSONDecoder().decode(Report.self, from: result.standardOutput)
    }
}
