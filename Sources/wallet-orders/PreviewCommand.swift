import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersPreview
import WalletOrdersServer

/// `wallet-orders preview PATH`: the order as the customer will see it, as one HTML page.
struct PreviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show an order as the customer will see it in Wallet: one self-contained HTML page.",
        discussion: """
            PATH is an order source folder or a .order archive. The page has the merchant, the \
            order's status, its fulfillments with their progress, line items, payment, returns, \
            the barcode (drawn, in any of Wallet's four formats) and the customer's links. Images \
            are inlined and the page loads nothing from the network. Validation findings (the \
            same rule ids as `wallet-orders validate`) are listed at the top and shown where they \
            apply.

            --customer leaves the findings and the list of languages out: the page as a customer \
            sees it, to show or ship.

            --lang picks the localization (xx.lproj) and the language of the page's words, dates, \
            money and numbers; the order's languages are listed. Without it, the page's language \
            is that of the localization shown when it has an order.strings, else --base-language \
            (the language order.json is written in; default en). --png also renders the page (390 px wide, at 2×) \
            with headless Chromium. Without --out the HTML goes to standard output.

            --serve shows the page on http://127.0.0.1:PORT/ instead (loopback only) and renders \
            it again whenever a file of PATH changes; the open page reloads itself. Ctrl-C stops.

            Exit codes: 0 page written, 1 failure, 64 usage error.

            Examples:
              wallet-orders preview Samples/localized --lang fr --out page.html
              wallet-orders preview order.order --appearance dark --png page.png
              wallet-orders preview order.order --customer --out page.html
              wallet-orders preview Samples/store-pickup --serve --port 8390
            """
    )

    @Argument(help: ArgumentHelp("An order source folder or a .order archive.", valueName: "path"))
    var path: String

    @Option(
        help: ArgumentHelp(
            "The language to show (fr, zh-Hans): the order's localization and the locale of its dates and money.", valueName: "language"))
    var lang: String?

    @Option(
        name: .customLong("base-language"),
        help: ArgumentHelp("The language order.json's own texts are written in (default en).", valueName: "language"))
    var baseLanguage = "en"

    @Flag(help: "The page as the customer sees it: no validation findings, no list of languages.")
    var customer = false

    @Option(help: ArgumentHelp("light or dark.", valueName: "appearance"))
    var appearance: Appearance = .light

    @Option(help: ArgumentHelp("Write the HTML page here ('-' is standard output, the default without --png).", valueName: "file"))
    var out: String?

    @Option(help: ArgumentHelp("Also render the page to this PNG with headless Chromium.", valueName: "file"))
    var png: String?

    @Option(
        name: .customLong("trust-root"),
        help: ArgumentHelp("Another trusted root certificate (PEM or DER) for archives; repeatable.", valueName: "file"))
    var trustRoots: [String] = []

    @Flag(help: "Serve the page on loopback and render it again when PATH changes (Ctrl-C stops).")
    var serve = false

    @Option(help: ArgumentHelp("The loopback port for --serve (default 8080; 0 picks a free one).", valueName: "port"))
    var port: Int?

    /// The `validate` command that gives the same findings: the same path and trust roots, each
    /// word quoted for a POSIX shell when it needs to be.
    var validateCommand: String {
        (["wallet-orders", "validate", path] + trustRoots.flatMap { ["--trust-root", $0] }).map(Self.shellWord).joined(separator: " ")
    }

    /// `word` as a POSIX shell reads it back: as it is when it holds only safe characters, else
    /// in single quotes.
    static func shellWord(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy {
            ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value | 0x20 >= 0x61 && $0.value | 0x20 <= 0x7A) || "-_./=:@%+,".unicodeScalars.contains($0)
        }
        return !word.isEmpty && safe ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    func validate() throws {
        if serve && (out != nil || png != nil) { throw ValidationError("--serve shows the page in a browser; it takes neither --out nor --png.") }
        if !serve && port != nil { throw ValidationError("--port applies to --serve only.") }
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535.") }
        if baseLanguage.isEmpty || baseLanguage.count > 35 || !baseLanguage.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
            throw ValidationError("--base-language takes a language identifier such as en, fr or pt-BR.")
        }
    }

    var previewOptions: PreviewOptions {
        PreviewOptions(language: lang, appearance: appearance.options, showsFindings: !customer, baseLanguage: baseLanguage)
    }

    enum Appearance: String, ExpressibleByArgument, CaseIterable {
        case light, dark
        var options: PreviewOptions.Appearance { self == .dark ? .dark : .light }
    }

    func run() async throws {
        if serve { return try await runServer() }
        let htmlTarget: OutputTarget? = out.map(OutputTarget.init) ?? (png == nil ? .standardOutput : nil)
        let messages: Terminal.Stream = htmlTarget == .standardOutput ? .standardError : .standardOutput
        let preview = try reportingFailures {
            try htmlTarget?.check()
            if let png { try OutputTarget.path(png).check() }
            let validator = try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: TrustRoots.read(trustRoots)))
            let previewer = OrderPreviewer(validator: validator)
            let options = previewOptions
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw WalletOrdersError(
                    .fileAccess, "'\(path)' does not exist.", hint: "Pass an order source folder (holding order.json) or a .order archive.")
            }
            if isDirectory.boolValue {
                return previewer.preview(try OrderSource(directory: URL(fileURLWithPath: path)), subject: path, options: options)
            }
            let archive = try OrderArchive(bytes: BoundedFile.read(path, as: .archive))
            return previewer.preview(archive, subject: path, options: options)
        }
        if preview.languages.isEmpty {
            Terminal.write("languages: none (the order has no .lproj folders)", to: messages)
        } else {
            let shown = preview.language ?? "-"
            Terminal.write("languages: \(preview.languages.joined(separator: ", ")) (showing \(shown))", to: messages)
        }
        if let lang, let language = preview.language,
            language.split(separator: "-").first?.lowercased() != lang.split(whereSeparator: { $0 == "-" || $0 == "_" }).first?.lowercased()
        {
            Terminal.write(
                "note: the order has no '\(lang)' localization; its \(language) strings are shown, dates and money formatted for '\(lang)'.",
                to: messages)
        }
        let errors = preview.report.errors.count
        let warnings = preview.report.warnings.count
        let notes = preview.report.diagnostics.count - errors - warnings
        Terminal.write(
            "findings: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
                + (notes > 0 ? ", \(notes) info" : "")
                + (preview.report.diagnostics.isEmpty
                    ? ""
                    : " (\(customer ? "left off the page, as a customer sees it" : "listed at the top of the page"); `\(validateCommand)` \(customer ? "lists" : "explains") them)"),
            to: messages)
        try reportingFailures {
            if let htmlTarget {
                try htmlTarget.write(Array(preview.html.utf8))
                if htmlTarget != .standardOutput { Terminal.write("wrote \(htmlTarget) (\(preview.html.utf8.count) bytes)", to: messages) }
            }
        }
        if let png {
            let chromium: HeadlessChromium
            do {
                chromium = try HeadlessChromium.find()
            } catch {
                Terminal.reportError(error.description, hint: HeadlessChromium.NotInstalled.hint)
                throw ExitCode.failure
            }
            do {
                let bytes = try await chromium.screenshot(html: preview.html)
                try reportingFailures { try OutputTarget.path(png).write(bytes) }
                Terminal.write("wrote \(png) (390 px wide at 2x, \(appearance.rawValue))", to: messages)
            } catch let error as ExitCode {
                throw error
            } catch {
                Terminal.reportError(
                    "Chromium could not render the page: \(error)",
                    hint: "Run `\(chromium.executable.path) --headless --screenshot about:blank` to see what it says.")
                throw ExitCode.failure
            }
        }
    }

    /// `--serve`: the page on loopback until Ctrl-C.
    private func runServer() async throws {
        let validator = try reportingFailures {
            try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: TrustRoots.read(trustRoots)))
        }
        guard FileManager.default.fileExists(atPath: path) else {
            Terminal.reportError("'\(path)' does not exist.", hint: "Pass an order source folder (holding order.json) or a .order archive.")
            throw ExitCode.failure
        }
        let server = PreviewServer(
            path: path, previewer: OrderPreviewer(validator: validator),
            options: previewOptions, port: port ?? 8080)
        let shown = path
        try await server.run { port in
            Terminal.write("serving the preview of \(shown) on http://127.0.0.1:\(port)/ (it reloads when \(shown) changes; Ctrl-C stops)")
        }
    }
}
