public import Foundation

/// Where the passphrase of an encrypted key or `.p12` comes from.
///
/// Never from a command-line argument: those are visible to every user in the process list.
/// (The CLI adds an interactive prompt on top of these.)
public enum PassphraseSource: Sendable, Hashable {
    /// A passphrase the caller already holds.
    case literal(String)
    /// The value of an environment variable.
    case environment(String)
    /// The first line of a file (a trailing newline is ignored).
    case file(URL)

    /// Reads the passphrase.
    ///
    /// - Throws: ``WalletOrdersError/Code/passphraseRequired`` when the variable is unset or
    ///   ``WalletOrdersError/Code/fileAccess`` when the file can't be read.
    public func resolve() throws -> String {
        switch self {
        case .literal(let value):
            return value
        case .environment(let name):
            guard let value = ProcessInfo.processInfo.environment[name] else {
                throw WalletOrdersError(
                    .passphraseRequired, "The environment variable \(name) that should hold the passphrase is not set.",
                    hint: "export \(name)='…' before running, or use a passphrase file.")
            }
            return value
        case .file(let url):
            let text = String(decoding: try BoundedFile.read(url, as: .passphrase), as: UTF8.self)
            return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        }
    }
}
