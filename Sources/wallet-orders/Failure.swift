import ArgumentParser
import WalletOrders

/// Runs a command body, turning library errors into `error: …` / `hint: …` on stderr and exit code 1.
func reportingFailures<T>(verbose: Bool = false, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as WalletOrdersError {
        Terminal.reportError(error.message, hint: CLIHints.hint(for: error))
        if verbose, let underlying = error.underlying {
            Terminal.write("caused by: \(underlying)", to: .standardError)
        }
        throw ExitCode.failure
    }
}
