import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletPasses

/// `wallet-orders store save FILE.order…`
struct StoreSaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Verify orders and passes and save them into the store.",
        discussion: """
            Takes orders (.order) and passes (.pkpass, and each pass of a .pkpasses bundle). \
            Prints one line per order once it is committed: added, newerExisting, cancelled, or \
            the error (the archive doesn't verify, or it has the stored updatedAt with different \
            files). A rebuild of the same files at the stored updatedAt (another signing time) is \
            added and leaves the store unchanged; the line says so. Archives are saved in \
            transactions of --batch-size, verified in parallel first; a result is printed only \
            after its transaction is durable. An archive whose updatedAt is more than \
            --updated-at-margin ahead of this computer's clock is refused \
            (order.updated-at-in-future): stored, it would win against every later version.

            A pass has no updatedAt: the newest save is the pass, as on the device. Each pass's \
            line says added (a new pass), replaced (a new version; the one before is kept), \
            voided (a new version that voids the pass) or unchanged (the same bytes, or the same \
            files signed again: nothing is written), with the stored version number.

            Exit code 0 when no archive failed (newerExisting and cancelled are not failures), 1 otherwise.

            Examples:
              wallet-orders store save out/*.order --trust-root certs/root-ca.pem
              wallet-orders store save new.order --confirm
              wallet-orders store save out/*.order --json > results.jsonl
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(
        name: .customLong("trust-root"),
        help: ArgumentHelp(
            "Another trusted root certificate (PEM or DER) for the archives being saved; repeatable. Apple Root CA is always trusted.",
            valueName: "file"))
    var trustRoots: [String] = []

    @Argument(help: ArgumentHelp("The orders and passes to save.", valueName: "file.order|file.pkpass"))
    var archives: [String]

    @Flag(help: "Ask on the terminal before each change, showing what it would replace.")
    var confirm = false

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Archives per transaction (1 commits each one on its own).", valueName: "n"))
    var batchSize = 256

    @Flag(help: "Print one JSON object per archive (JSON Lines).")
    var json = false

    @Option(
        name: .customLong("updated-at-margin"),
        help: ArgumentHelp(
            "Refuse an archive whose updatedAt is more than this many seconds ahead of the clock (default 86400, a day).", valueName: "seconds"))
    var updatedAtMargin: TimeInterval = UpdatedAtLimit.defaultMargin

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1.") }
        guard updatedAtMargin.isFinite, updatedAtMargin >= 0 else {
            throw ValidationError("--updated-at-margin must be a number of seconds of 0 or more.")
        }
        if confirm && !Terminal.hasTerminal {
            throw ValidationError("--confirm asks on the terminal, and there is none; leave it out to save without asking.")
        }
    }

    /// One line of `--json` output.
    struct Line: Encodable {
        var file: String
        var kind: ArchiveKind = .order
        var result: String?
        var orderTypeIdentifier: String?
        var orderIdentifier: String?
        var updatedAt: Timestamp?
        var passTypeIdentifier: String?
        var serialNumber: String?
        var version: Int?
        /// `false` when the store kept what it had (newerExisting, or the same content again).
        var storeChanged: Bool?
        var error: ErrorLine?

        struct ErrorLine: Encodable {
            var code: String
            var message: String
            var hint: String?
        }
    }

    func run() async throws {
        let opened = try await reportingFailuresAsync { try await store.open(updatedAtLimit: try UpdatedAtLimit(margin: updatedAtMargin)) }
        let intake = try reportingFailures { OrderIntake(validator: try StoreOptions.validator(trustRoots: trustRoots), store: opened) }
        let isPass = { (path: String) in path.hasSuffix(".pkpass") || path.hasSuffix(".pkpasses") }
        var failed = false
        let passes = archives.filter(isPass)
        if !passes.isEmpty {
            let validator = try reportingFailures { try StoreOptions.passValidator(trustRoots: trustRoots) }
            failed = await savePasses(passes, into: opened, validator: validator) || failed
        }
        let orders = archives.filter { !isPass($0) }
        let chunkSize = confirm ? 1 : batchSize
        for start in stride(from: 0, to: orders.count, by: chunkSize) {
            let paths = Array(orders[start..<min(start + chunkSize, orders.count)])
            var readable: [(path: String, bytes: [UInt8])] = []
            for path in paths {
                do {
                    readable.append((path, try BoundedFile.read(path, as: .archive)))
                } catch {
                    failed = true
                    report(path, .failure(error as? WalletOrdersError ?? WalletOrdersError(.fileAccess, "\(error)")))
                }
            }
            let results: [Result<OrderSaveReceipt, WalletOrdersError>]
            if confirm, let only = readable.first {
                results = [await saveConfirming(only.bytes, through: intake)]
            } else {
                do {
                    results = try await intake.save(signedArchives: readable.map(\.bytes))
                } catch {
                    // The whole transaction failed (a full disk, a lock held too long): each of its
                    // archives gets that error as its own line, and the next batch is still tried.
                    let failure = error as? WalletOrdersError ?? WalletOrdersError(.storeUnavailable, "\(error)")
                    results = readable.map { _ in .failure(failure) }
                }
            }
            for (item, result) in zip(readable, results) {
                if case .failure = result { failed = true }
                report(item.path, result)
            }
        }
        if failed { throw ExitCode.failure }
    }

    /// Saves passes, `--batch-size` to a transaction; returns whether any failed.
    private func savePasses(_ paths: [String], into store: any PassStoring, validator: PassValidator) async -> Bool {
        var failed = false
        var pending: [(path: String, pass: VerifiedPassArchive)] = []
        func commit() async {
            guard !pending.isEmpty else { return }
            do {
                let receipts = try await store.save(verifiedPasses: pending.map(\.pass))
                for (item, receipt) in zip(pending, receipts) { reportPass(item.path, .success(receipt)) }
            } catch {
                failed = true
                let failure = error as? WalletOrdersError ?? WalletOrdersError(.storeUnavailable, "\(error)")
                for item in pending { reportPass(item.path, .failure(failure)) }
            }
            pending.removeAll()
        }
        for path in paths {
            do {
                let bytes = try BoundedFile.read(path, as: .passArchive)
                // Each pass of a bundle is saved as its own pass, named BUNDLE/NAME.pkpass.
                let members =
                    path.hasSuffix(".pkpasses")
                    ? try PassBundle(bytes: bytes).members.map { ("\(path)/\($0.name)", $0.bytes) } : [(path, bytes)]
                for (name, member) in members {
                    do {
                        pending.append((name, try VerifiedPassArchive(bytes: member, validator: validator)))
                    } catch {
                        failed = true
                        reportPass(name, .failure(error as? WalletOrdersError ?? WalletOrdersError(.archiveRejected, "\(error)")))
                    }
                }
            } catch {
                failed = true
                reportPass(path, .failure(error as? WalletOrdersError ?? WalletOrdersError(.fileAccess, "\(error)")))
            }
            if pending.count >= batchSize { await commit() }
        }
        await commit()
        return failed
    }

    private func reportPass(_ path: String, _ result: Result<PassSaveReceipt, WalletOrdersError>) {
        if json {
            var line = Line(file: path, kind: .pass)
            switch result {
            case .success(let receipt):
                line.result = receipt.result.rawValue
                line.passTypeIdentifier = receipt.identifier.passTypeIdentifier
                line.serialNumber = receipt.identifier.serialNumber
                line.version = receipt.version
                line.storeChanged = receipt.storeChanged
            case .failure(let error):
                line.error = .init(code: error.code.rawValue, message: error.message, hint: CLIHints.hint(for: error))
            }
            JSONOutput.printLine(line)
            return
        }
        switch result {
        case .success(let receipt):
            let style: Terminal.Style = receipt.storeChanged ? .green : .yellow
            Terminal.write(
                "\(Terminal.styled(receipt.result.rawValue, style))  \(receipt.identifier) (version \(receipt.version))  \(path)")
        case .failure(let error):
            Terminal.reportError("\(path): \(error.message)", hint: CLIHints.hint(for: error))
        }
    }

    private func saveConfirming(_ bytes: [UInt8], through intake: OrderIntake) async -> Result<OrderSaveReceipt, WalletOrdersError> {
        do {
            let result = try await intake.submit(
                signedArchive: bytes,
                confirm: { proposal in
                    let question: String
                    if let stored = proposal.storedUpdatedAt {
                        question =
                            "Replace \(proposal.identifier) (stored updatedAt \(stored)) with the version of \(proposal.incomingUpdatedAt)? [y/N] "
                    } else {
                        question = "Add \(proposal.identifier) (updatedAt \(proposal.incomingUpdatedAt)), not stored yet? [y/N] "
                    }
                    return Terminal.askYesNo(question)
                })
            return Result { () throws(WalletOrdersError) in try result.get().receipt }
        } catch {
            return .failure((error as? WalletOrdersError) ?? WalletOrdersError(.storeUnavailable, "\(error)"))
        }
    }

    private func report(_ path: String, _ result: Result<OrderSaveReceipt, WalletOrdersError>) {
        if json {
            var line = Line(file: path)
            switch result {
            case .success(let receipt):
                line.result = receipt.result.rawValue
                line.orderTypeIdentifier = receipt.identifier.orderTypeIdentifier
                line.orderIdentifier = receipt.identifier.orderIdentifier
                line.updatedAt = receipt.updatedAt
                line.storeChanged = receipt.storeChanged
            case .failure(let error):
                line.error = .init(code: error.code.rawValue, message: error.message, hint: CLIHints.hint(for: error))
            }
            JSONOutput.printLine(line)
            return
        }
        switch result {
        case .success(let receipt):
            let style: Terminal.Style = receipt.result == .added ? .green : .yellow
            let unchanged =
                receipt.result == .added && !receipt.storeChanged ? "  (store unchanged: the same files are stored)" : ""
            Terminal.write(
                "\(Terminal.styled(receipt.result.rawValue, style))  \(receipt.identifier) (updatedAt \(receipt.updatedAt))  \(path)\(unchanged)")
        case .failure(let error):
            Terminal.reportError("\(path): \(error.message)", hint: CLIHints.hint(for: error))
        }
    }
}
