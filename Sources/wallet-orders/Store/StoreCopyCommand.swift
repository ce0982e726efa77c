import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersStore
import WalletPasses

/// `wallet-orders store copy FROM TO`: every order of one store into another, resumably, then
/// verified by counts and hashes.
struct StoreCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy every order and pass of one store into another (SQLite to PostgreSQL and back), then verify the copy.",
        discussion: """
            FROM and TO are store locations: a path or sqlite:PATH, or postgres://USER@HOST/DATABASE \
            (keep passwords in PGPASSWORD, not on the command line). Orders are read in pages of \
            --batch-size, in identifier order, and saved into TO one page per transaction through \
            the store contract: TO verifies every archive again (pass --trust-root for test \
            certificates), keeps a newer version it holds, and leaves what it has already alone, \
            so running the copy again is safe. With --resume-file the cursor of the last saved \
            page is kept in FILE, and a copy that was stopped continues after it.

            Afterwards both stores are compared order by order: counts, each archive's SHA-256 \
            (a newer version in TO counts as copied) and a digest of each store's list. Exit code \
            0 when every order of FROM is in TO, 1 otherwise. Device registrations and the \
            customer link secrets go with the orders (when both stores keep them), so devices and \
            the customer links FROM gave out keep working; a TO that already holds orders keeps \
            its own secret too, so its links keep working as well. The push outbox and the \
            change history are not copied.

            Passes follow the orders, each with all its versions, oldest first, verified again \
            by TO; then both stores are compared pass by pass (each newest version's SHA-256). \
            The change sequence moves on in TO, so the tags devices hold stay exact.

            Examples:
              wallet-orders store copy orders.sqlite postgres://wallet@db.internal/orders
              wallet-orders store copy postgres://wallet@db/orders backup.sqlite \\
                  --resume-file copy.cursor
            """
    )

    @Argument(help: ArgumentHelp("The store to copy from.", valueName: "from"))
    var source: String

    @Argument(help: ArgumentHelp("The store to copy into (a SQLite file is created when missing).", valueName: "to"))
    var destination: String

    @Option(
        name: .customLong("trust-root"),
        help: ArgumentHelp("Also trust this root certificate (PEM) when TO verifies the archives; repeatable.", valueName: "pem"))
    var trustRoots: [String] = []

    @Option(help: ArgumentHelp("Orders per page and per transaction (default 100).", valueName: "n"))
    var batchSize = 100

    @Option(help: ArgumentHelp("Keep the cursor of the last saved page in FILE, and continue after it when FILE exists.", valueName: "file"))
    var resumeFile: String?

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be 1 or more.") }
    }

    struct Output: Encodable {
        var copy: OrderStoreCopy.Report
        var verification: OrderStoreCopy.Verification
        var passes: PassStoreCopy.Report
        var passVerification: PassStoreCopy.Verification
    }

    func run() async throws {
        let (from, to, validator) = try await reportingFailuresAsync { () async throws -> (any AnyOrderStore, any AnyOrderStore, OrderValidator) in
            let fromLocation = try OrderStoreLocation.parse(source)
            let toLocation = try OrderStoreLocation.parse(destination)
            try StoreOptions.refusePassword(in: fromLocation)
            try StoreOptions.refusePassword(in: toLocation)
            if fromLocation.backend == toLocation.backend, fromLocation.url.standardizedFileURL == toLocation.url.standardizedFileURL {
                throw WalletOrdersError(
                    .invalidConfiguration, "FROM and TO are the same store (\(fromLocation.displayName)).",
                    hint: "Name another store to copy into.")
            }
            if fromLocation.backend == .sqlite, !FileManager.default.fileExists(atPath: fromLocation.url.path) {
                throw WalletOrdersError(
                    .storeUnavailable, "'\(fromLocation.url.path)' does not exist.", hint: "FROM must be an existing store.")
            }
            return (
                try await StoreOptions.open(fromLocation, .readOnly),
                try await StoreOptions.open(toLocation),
                try StoreOptions.validator(trustRoots: trustRoots)
            )
        }
        let cursorFile = resumeFile
        let start = try reportingFailures { () throws -> OrderListCursor? in
            guard let cursorFile, FileManager.default.fileExists(atPath: cursorFile) else { return nil }
            let text = String(
                decoding: try BoundedFile.read(
                    cursorFile, as: FileKind(name: "resume file", maximumBytes: 64 * 1024, reason: "It holds one cursor.")), as: UTF8.self)
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : try OrderListCursor(encoded: trimmed)
        }
        if start != nil && !json { Terminal.write("resuming after the cursor in \(cursorFile ?? "")", to: .standardError) }
        let quiet = json
        let report = try await reportingFailuresAsync {
            try await OrderStoreCopy.copy(from: from, to: to, validator: validator, batchSize: batchSize, after: start) { progress in
                if let cursorFile {
                    try OutputTarget.path(cursorFile).write(Array((progress.cursor.encoded + "\n").utf8))
                }
                if !quiet {
                    Terminal.write(
                        "copied \(progress.report.read) orders: \(progress.report.written) written, \(progress.report.unchanged) already there, \(progress.report.failures.count) failed",
                        to: .standardError)
                }
            }
        }
        let verification = try await reportingFailuresAsync { try await OrderStoreCopy.verify(source: from, destination: to) }
        let passValidator = try reportingFailures { try StoreOptions.passValidator(trustRoots: trustRoots) }
        let passes = try await reportingFailuresAsync {
            try await PassStoreCopy.copy(from: from, to: to, validator: passValidator, batchSize: batchSize)
        }
        let passVerification = try await reportingFailuresAsync { try await PassStoreCopy.verify(source: from, destination: to) }
        if json {
            try JSONOutput.print(Output(copy: report, verification: verification, passes: passes, passVerification: passVerification))
        } else {
            for failure in report.failures {
                Terminal.reportError("\(failure.identifier): [\(failure.code)] \(failure.message)", hint: nil)
            }
            Terminal.write(
                "copied \(report.read) orders: \(report.written) written, \(report.unchanged) already there, \(report.failures.count) failed; \(report.registrations) device registrations"
            )
            Terminal.write(
                "verified: \(verification.sourceCount) in FROM, \(verification.destinationCount) in TO; \(verification.identical) identical, \(verification.newerInDestination) newer in TO, \(verification.mismatched.count) missing or different"
            )
            Terminal.write("digest FROM \(verification.sourceDigest)")
            Terminal.write("digest TO   \(verification.destinationDigest)")
            for failure in passes.failures {
                Terminal.reportError("\(failure.identifier): [\(failure.code)] \(failure.message)", hint: nil)
            }
            Terminal.write(
                "copied \(passes.read) passes: \(passes.written) written, \(passes.unchanged) already there, \(passes.failures.count) failed; \(passes.registrations) device registrations"
            )
            Terminal.write(
                "verified: \(passVerification.sourceCount) passes in FROM, \(passVerification.destinationCount) in TO; \(passVerification.identical) identical, \(passVerification.mismatched.count) missing or different"
            )
        }
        if !verification.isComplete || !report.failures.isEmpty || !passVerification.isComplete || !passes.failures.isEmpty {
            throw ExitCode.failure
        }
    }
}
