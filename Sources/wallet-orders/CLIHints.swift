import WalletOrders
import WalletOrdersStore

/// The command line's half of a hint. The library says what is wrong and what fixes it in its own
/// terms; only the tool knows which of its flags does that, so it adds that sentence here, by
/// error code and by rule.
enum CLIHints {
    /// By error code.
    static let byCode: [WalletOrdersError.Code: String] = [
        .passphraseRequired: "Give it with --passphrase-env VAR or --passphrase-file FILE, or type it at the prompt.",
        .intermediateMissing: "Pass it with --wwdr (for example AppleWWDRCAG4.cer).",
        .validationFailed: "To sign anyway, pass --no-validate.",
        .updatedAtConflict: "To rebuild byte for byte, build with a fixed signing time: --signing-time or SOURCE_DATE_EPOCH.",
        .updatedAtInFuture: "The margin is --updated-at-margin SECONDS of `store save` and `serve` (default 86400).",
        .storeUnavailable: "Choose the store with --store (a path or a postgres:// URL).",
        .storeReadOnly: "Choose the store with --store (a path or a postgres:// URL).",
        .storeCorrupt: "Choose the store with --store (a path or a postgres:// URL).",
        .historyTokenInvalid: "Run `wallet-orders store history` without --since (or --token-file) to start again.",
    ]

    /// By rule identifier, for findings in reports.
    static let byRule: [String: String] = [
        ValidationRule.certificateUntrusted.id: "For development certificates pass --trust-root root-ca.pem.",
        ValidationRule.signatureIntermediateMissing.id: "wallet-orders build includes the intermediate given with --wwdr.",
    ]

    /// The error's hint with this tool's sentence after it: by its code, and for an archive a
    /// store rejected, by the rules its findings name (an untrusted development certificate gets
    /// the `--trust-root` sentence `validate` gives).
    static func hint(for error: WalletOrdersError) -> String? {
        var extra = byCode[error.code]
        if error.code == .archiveRejected {
            let byFinding = byRule.keys.sorted().filter { error.message.contains("  \($0): ") }.compactMap { byRule[$0] }
            if !byFinding.isEmpty { extra = ([extra].compactMap { $0 } + byFinding).joined(separator: " ") }
        }
        return joined(error.hint, extra)
    }

    /// `report` with this tool's sentence after each hint it has one for.
    static func annotated(_ report: ValidationReport) -> ValidationReport {
        var report = report
        for index in report.diagnostics.indices {
            if let extra = byRule[report.diagnostics[index].ruleID] {
                report.diagnostics[index].hint = joined(report.diagnostics[index].hint, extra)
            }
        }
        return report
    }

    /// `hint` then `extra`. A hint that already names a flag came from this tool (the library
    /// names none; a test checks), so it is kept as it is.
    private static func joined(_ hint: String?, _ extra: String?) -> String? {
        guard let extra, !(hint?.contains(" --") ?? false) else { return hint }
        guard let hint, !hint.isEmpty else { return extra }
        return hint + " " + extra
    }
}
