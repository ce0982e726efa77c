import Foundation
import WalletPasses

/// `PassValidator.validate(archiveBytes:)`: everything `wallet-orders validate` does with a
/// `.pkpass`. Genuine Apple-signed passes are among the seeds, so a report may be clean; what must
/// hold is that it is consistent and renders.
enum PassFuzzing {
    static let validator: PassValidator = {
        do {
            return try PassValidator()
        } catch {
            fatalError("fuzz pass: the validator can't be built: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let report = validator.validate(archiveBytes: bytes, subject: "fuzz.pkpass", now: FuzzTarget.now)
        try require(report.isValid == report.errors.isEmpty, .pass, "isValid disagrees with the errors")
        for finding in report.diagnostics {
            if let line = finding.location.line { try require(line >= 1, .pass, "line \(line) in \(finding)") }
        }
        let renderer = ReportRenderer()
        for format in ReportFormat.allCases { _ = renderer.render([report], as: format) }
    }
}

/// `pass.json` alone: read as the device reads it and validated as a source's (JSON, the keys
/// Wallet requires, the schema, the rules), with Apple's sample icon beside it.
enum PassJSONFuzzing {
    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let report = PassFuzzing.validator.validate(PassSource(files: ["pass.json": bytes, "icon.png": icon]), subject: "pass")
        for finding in report.diagnostics where finding.location.file == "pass.json" {
            if let line = finding.location.line, let column = finding.location.column {
                try require(line >= 1 && column >= 1, .passJSON, "position \(line):\(column) in \(finding)")
            }
        }
        let identity = try? PassArchive.identity(of: bytes)
        if let identity {
            try require(
                identity.missingKeys.allSatisfy(PassIdentity.requiredKeys.contains), .passJSON, "missing keys \(identity.missingKeys)")
        }
    }

    /// The smallest PNG: the icon's bytes don't matter to these rules, its presence does.
    static let icon: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}

/// `.pkpasses` bundles: opened within their limits, each pass verified on its own.
enum PassBundleFuzzing {
    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let reports = PassBundle.verify(bytes: bytes, subject: "fuzz.pkpasses", with: PassFuzzing.validator.verifier, now: FuzzTarget.now)
        try require(!reports.isEmpty, .pkpasses, "no report for a bundle")
        if let bundle = try? PassBundle(bytes: bytes) {
            let total = bundle.members.reduce(0) { $0 + $1.bytes.count }
            try require(total <= ArchiveLimits.maximumPassFileBytes, .pkpasses, "read \(total) bytes of passes")
        }
    }
}

/// `pass.strings`: the input as `en.lproj/pass.strings` of a pass whose fields use localized
/// keys, beside a German one, validated as a source's (the `.strings` parser, the encoding check,
/// the keys compared across languages and with pass.json).
enum PassStringsFuzzing {
    static let passJSON = Array(
        #"{"formatVersion": 1, "passTypeIdentifier": "pass.com.example.fuzz", "serialNumber": "F-1", "teamIdentifier": "FUZZTEAM01", "organizationName": "ORG", "description": "DESCRIPTION", "generic": {"primaryFields": [{"key": "name", "label": "LABEL", "value": "VALUE"}]}}"#
            .utf8)
    static let german = Array("/* Deutsch */\n\"ORG\" = \"Beispiel\";\n\"DESCRIPTION\" = \"Mitgliedskarte\";\n\"LABEL\" = \"Name\";\n".utf8)

    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let files = [
            "pass.json": passJSON, "icon.png": PassJSONFuzzing.icon, "en.lproj/pass.strings": bytes, "de.lproj/pass.strings": german,
        ]
        let report = PassFuzzing.validator.validate(PassSource(files: files), subject: "pass")
        try require(report.isValid == report.errors.isEmpty, .passStrings, "isValid disagrees with the errors")
        for finding in report.diagnostics {
            if let line = finding.location.line { try require(line >= 1, .passStrings, "line \(line) in \(finding)") }
            try require(finding.location.file != "pass.json" || finding.severity != .error, .passStrings, "pass.json blamed: \(finding)")
        }
        let renderer = ReportRenderer()
        for format in ReportFormat.allCases { _ = renderer.render([report], as: format) }
    }
}
