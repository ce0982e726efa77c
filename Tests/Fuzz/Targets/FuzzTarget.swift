import Foundation
import WalletOrdersJSON

/// One input the package reads from outside, as a fuzz target: bytes in, the same entry point the
/// library or the CLI uses, and the invariants that must hold whatever the bytes.
///
/// A target never crashes on its own account: a broken invariant is thrown as an
/// ``InvariantViolation`` (the fuzzing driver turns it into a crash, so libFuzzer saves the input;
/// a regression test can expect it not to be thrown). Crashes, hangs and leaks in the code under
/// test are libFuzzer's and AddressSanitizer's to find.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The zip reader: ``ZipLayout`` and `OrderArchive(bytes:)` (libzip, the strict layout walk,
    /// the entry checks and limits).
    case zip
    /// `JSONParser.parse`.
    case json
    /// The schema evaluator: the input parsed as JSON, judged by `Schemas/order.schema.json`.
    case schema
    /// The `.strings` parser (and the image sniffer the same rules use).
    case strings
    /// The DER/CMS reader: `DERReader`, `StrictSignedData` and OpenSSL's CMS parser, read the way
    /// the verifier reads a `signature` file.
    case der
    /// The signing-identity loader: PEM/DER certificate and key, encrypted PEM, PKCS #12.
    case identity
    /// `OrderValidator.validate(archiveBytes:)`: everything `wallet-orders validate` does.
    case validate
    /// `OrderIntake.save(signedArchive:)` into a SQLite store in a temporary folder.
    case store
    /// `PassValidator.validate(archiveBytes:)`: everything `wallet-orders validate` does with a `.pkpass`.
    case pass
    /// `pass.json` alone, read as the device reads it and validated as a source's.
    case passJSON = "pass-json"
    /// `.pkpasses` bundles, each pass verified on its own.
    case pkpasses
    /// `pass.strings` in a pass, beside another language's, validated as a source's.
    case passStrings = "pass-strings"

    /// Runs the target on one input.
    ///
    /// - Throws: ``InvariantViolation`` when the code under test broke a promise it makes for
    ///   any input.
    public func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        switch self {
        case .zip: try ZipFuzzing.run(bytes)
        case .json: try JSONFuzzing.run(bytes)
        case .schema: try SchemaFuzzing.run(bytes)
        case .strings: try StringsFuzzing.run(bytes)
        case .der: try DERFuzzing.run(bytes)
        case .identity: try IdentityFuzzing.run(bytes)
        case .validate: try ValidateFuzzing.run(bytes)
        case .store: try StoreFuzzing.run(bytes)
        case .pass: try PassFuzzing.run(bytes)
        case .passJSON: try PassJSONFuzzing.run(bytes)
        case .pkpasses: try PassBundleFuzzing.run(bytes)
        case .passStrings: try PassStringsFuzzing.run(bytes)
        }
    }

    /// Builds what the target keeps between inputs (a compiled schema, a validator, a store), so
    /// that the first input isn't charged for it.
    public func prepare() {
        switch self {
        case .schema: _ = SchemaFuzzing.schema
        case .validate: _ = ValidateFuzzing.validator
        case .store: _ = StoreFuzzing.store
        case .pass, .passJSON, .pkpasses, .passStrings: _ = PassFuzzing.validator
        default: break
        }
    }

    /// The fixed "now" every target validates at, so that a saved input replays the same way.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
}

/// A promise the code under test broke for some input.
public struct InvariantViolation: Error, Sendable, CustomStringConvertible {
    /// The target that found it.
    public var target: FuzzTarget
    /// What went wrong.
    public var message: String

    public init(_ target: FuzzTarget, _ message: String) {
        self.target = target
        self.message = message
    }

    public var description: String { "\(target.rawValue): \(message)" }
}

/// Throws an ``InvariantViolation`` unless `condition` holds.
func require(_ condition: Bool, _ target: FuzzTarget, _ message: @autoclosure () -> String) throws(InvariantViolation) {
    if !condition { throw InvariantViolation(target, message()) }
}
