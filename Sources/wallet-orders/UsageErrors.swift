package import ArgumentParser
import Foundation

/// Argument-parser's own errors (`Unknown option '--passphrase'`, a missing argument, a
/// `ValidationError`) in the tool's form: `error: …` and `hint: …` on stderr, exit code 64,
/// with the hint a user needs where one is obvious.
enum UsageErrors {
    /// Options people try that the tool deliberately doesn't have, and what to use instead.
    static let knownMistakes: [String: String] = [
        "--passphrase":
            "A passphrase is never taken as an argument (the process list is public): use --passphrase-env NAME or --passphrase-file FILE.",
        "--password": "Use --passphrase-env NAME or --passphrase-file FILE (a passphrase is never an argument).",
        "--p12-passphrase": "Use --passphrase-env NAME or --passphrase-file FILE (a passphrase is never an argument).",
        "--port": listenHint, "--host": listenHint, "--hostname": listenHint, "--bind": listenHint, "--address": listenHint,
    ]

    /// For `serve --port` and its kin.
    static let listenHint =
        "serve takes the address and the port together: --listen 127.0.0.1:8080 (0.0.0.0:8080 for every interface; port 0 picks a free one)."

    /// The subcommand path in `arguments` (`store save`), for `wallet-orders store save --help`.
    static func commandPath(_ arguments: [String]) -> String {
        var path: [String] = []
        var command: any ParsableCommand.Type = WalletOrdersCommand.self
        for argument in arguments {
            guard
                let next = command.configuration.subcommands.first(where: {
                    $0.configuration.commandName == argument || $0.configuration.aliases.contains(argument)
                })
            else { break }
            path.append(argument)
            command = next
        }
        return (["wallet-orders"] + path).joined(separator: " ")
    }

    /// The hint for a usage error's `message`, given the arguments of the run.
    static func hint(for message: String, arguments: [String]) -> String {
        if let option = message.firstMatch(of: /Unknown option '([^']+)'/)?.1 {
            let name = String(option.split(separator: "=", maxSplits: 1)[0])
            if let known = knownMistakes[name] { return known }
        }
        return "`\(commandPath(arguments)) --help` lists the arguments and options, with examples."
    }

    /// Prints `message` as `error: …` + `hint: …`.
    static func report(_ message: String, arguments: [String]) {
        var text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
        // Argument-parser's own hints ("Did you mean…?", "Help: …") become part of the message line.
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        Terminal.reportError(lines.joined(separator: " "), hint: hint(for: text, arguments: arguments))
    }
}

extension WalletOrdersCommand {
    /// Parses and runs the command; usage errors are printed by ``UsageErrors`` rather than in
    /// argument-parser's own form. Help, `--version`, completions and exit codes are unchanged.
    static func main() async {
        POSIX.readLocalTimeZoneOnce()
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments: arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = message(for: error)
            guard code == .validationFailure, !message.isEmpty else { exit(withError: error) }
            UsageErrors.report(message, arguments: arguments)
            Foundation.exit(code.rawValue)
        }
    }
}

extension WalletOrdersCommand {
    /// `parseAsRoot(arguments)`, with a long trailing list of paths handed to the command after
    /// parsing rather than through the parser (``PathListArguments``).
    package static func parseAsRoot(arguments: [String]) throws -> any ParsableCommand {
        let (parsed, trailing) = PathListArguments.split(arguments)
        guard !trailing.isEmpty else { return try parseAsRoot(arguments) }
        guard var command = try parseAsRoot(parsed) as? any PathListCommand else {
            return try parseAsRoot(arguments)  // not a list of paths after all: the parser's way
        }
        command.pathList += trailing
        return command
    }
}
