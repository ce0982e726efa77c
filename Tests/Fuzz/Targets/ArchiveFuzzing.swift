import Foundation
import WalletOrders
import WalletOrdersInterop

/// The zip reader: the strict layout walk on its own (it reads headers libzip may refuse), then
/// `OrderArchive(bytes:)` (libzip, the layout checks, every entry read within the limits).
enum ZipFuzzing {
    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let layout = ZipLayout(bytes)
        // (A problem's offset may lie past the data: it is where a record *says* something is.)
        for problem in layout.problems {
            try require(problem.offset >= 0, .zip, "negative problem offset \(problem.offset): \(problem.message)")
            if let index = problem.recordIndex {
                try require(index >= 0, .zip, "negative record index \(index): \(problem.message)")
            }
        }
        try require(layout.untrustedRecords.allSatisfy { $0 >= 0 }, .zip, "negative untrusted record index")
        let archive: OrderArchive
        do {
            archive = try OrderArchive(bytes: bytes)
        } catch {
            let code = (error as? WalletOrdersError)?.code
            try require(code == .archiveUnreadable, .zip, "OrderArchive(bytes:) threw \(error), not archive-unreadable")
            return
        }
        try require(archive.byteCount == bytes.count, .zip, "byteCount \(archive.byteCount) for \(bytes.count) bytes")
        var total = 0
        for path in archive.filePaths {
            guard let contents = archive.contents(of: path) else {
                throw InvariantViolation(.zip, "filePaths lists \(path) but contents(of:) has none")
            }
            total += contents.count
        }
        let limits = ArchiveLimits()
        try require(
            total <= limits.maxTotalUncompressedBytes, .zip,
            "read \(total) bytes, more than the \(limits.maxTotalUncompressedBytes)-byte limit")
    }
}

/// Everything `wallet-orders validate` does with an archive's bytes. No archive made without
/// Apple's key can pass: every report must have an error.
enum ValidateFuzzing {
    static let validator: OrderValidator = {
        do {
            return try OrderValidator()
        } catch {
            fatalError("fuzz validate: the validator can't be built: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let report = validator.validate(archiveBytes: bytes, subject: "fuzz.order", now: FuzzTarget.now)
        try require(!report.isValid, .validate, "an archive not signed by Apple passed: \(report.diagnostics)")
        // The reports quote names and text from the archive: render them as the CLI would.
        let renderer = ReportRenderer()
        for format in ReportFormat.allCases {
            _ = renderer.render([report], as: format)
        }
    }
}
