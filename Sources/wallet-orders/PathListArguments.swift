package import ArgumentParser

/// A command whose trailing argument is a list of paths, which a shell glob can make thousands
/// long (`wallet-orders validate out/*.order`).
///
/// Argument-parser spends time quadratic in the number of values of one array argument (it
/// merges each value's origin into the set of every earlier one): 3,000 paths took 0.28 s to
/// parse and 6,000 took 0.96 s, more than validating them. So ``split(_:)`` takes a long trailing
/// run of paths off before parsing, and ``WalletOrdersCommand/main()`` hands them to the parsed
/// command afterwards: the same command, the same paths in the same order.
package protocol PathListCommand: ParsableCommand {
    /// The paths the command was given, in order.
    var pathList: [String] { get set }
}

extension ValidateCommand: PathListCommand {
    package var pathList: [String] {
        get { paths }
        set { paths = newValue }
    }
}

extension InspectCommand: PathListCommand {
    package var pathList: [String] {
        get { paths }
        set { paths = newValue }
    }
}

extension VerifyCommand: PathListCommand {
    package var pathList: [String] {
        get { archives }
        set { archives = newValue }
    }
}

extension StoreSaveCommand: PathListCommand {
    package var pathList: [String] {
        get { archives }
        set { archives = newValue }
    }
}

package enum PathListArguments {
    /// Below this many trailing values argument-parser's cost doesn't show (64 paths: under 1 ms).
    package static let threshold = 64

    /// `arguments` without the end of its trailing run of values (arguments that don't start
    /// with `-`), and that end: the values argument-parser needn't see one by one. The run's first
    /// two values (after the subcommand's name, when the run starts with it) stay, so that the parser still sees the value of an option just before the
    /// run (`--trust-root root.pem`) and at least one path; everything after them is a path
    /// whatever the command, as no option of a path-list command takes more than one value.
    /// Nothing is split off when the run is short or the arguments hold `--` (after which even
    /// `-x` is a value).
    package static func split(_ arguments: [String]) -> (parsed: [String], trailing: [String]) {
        guard !arguments.contains("--") else { return (arguments, []) }
        var start = arguments.endIndex
        while start > arguments.startIndex, !arguments[start - 1].hasPrefix("-") { start -= 1 }
        // A run from the start holds the subcommand's name first (`store save a.order …`).
        let commandWords = start == arguments.startIndex ? UsageErrors.commandPath(arguments).split(separator: " ").count - 1 : 0
        let kept = start + commandWords + 2
        guard arguments.endIndex - kept > threshold else { return (arguments, []) }
        return (Array(arguments[..<kept]), Array(arguments[kept...]))
    }
}
