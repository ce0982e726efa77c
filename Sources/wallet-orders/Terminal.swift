import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to the terminal: colors only on a TTY and never with `NO_COLOR`; errors on stderr.
enum Terminal {
    enum Stream {
        case standardOutput, standardError
        var descriptor: Int32 { self == .standardOutput ? 1 : 2 }
    }

    /// Whether ANSI colors may be used on `stream` (https://no-color.org).
    static func colorsEnabled(on stream: Stream) -> Bool {
        ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
            && isatty(stream.descriptor) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    enum Style: String {
        case red = "31"
        case yellow = "33"
        case green = "32"
        case cyan = "36"
        case bold = "1"
        case dim = "2"
    }

    static func styled(_ text: String, _ style: Style, on stream: Stream = .standardOutput) -> String {
        colorsEnabled(on: stream) ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    static func write(_ text: String, to stream: Stream = .standardOutput) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        if stream == .standardOutput {
            FileHandle.standardOutput.write(Data(line.utf8))
        } else {
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// `error: message` (+ `hint: …`) on stderr.
    static func reportError(_ message: String, hint: String? = nil) {
        write(styled("error:", .red, on: .standardError) + " " + message, to: .standardError)
        if let hint { write(styled("hint:", .cyan, on: .standardError) + " " + hint, to: .standardError) }
    }

    /// `warning: message` on stderr.
    static func reportWarning(_ message: String) {
        write(styled("warning:", .yellow, on: .standardError) + " " + message, to: .standardError)
    }

    /// Whether the process has a controlling terminal to ask questions on.
    static var hasTerminal: Bool {
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else { return false }
        close(tty)
        return true
    }

    /// Asks a yes/no question on the controlling terminal; anything but `y`/`yes` (or no
    /// terminal) is no.
    static func askYesNo(_ question: String) -> Bool {
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else { return false }
        defer { close(tty) }
        _ = question.withCString { POSIX.write(tty, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while POSIX.read(tty, &byte, 1) == 1, byte != 0x0a, byte != 0x0d { bytes.append(byte) }
        let answer = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// Reads a secret from the controlling terminal with echo off, or `nil` when there is no terminal.
    static func readSecret(prompt: String) -> String? {
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var original = termios()
        guard tcgetattr(tty, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = prompt.withCString { POSIX.write(tty, $0, strlen($0)) }
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer {
            tcsetattr(tty, TCSAFLUSH, &original)
            _ = "\n".withCString { POSIX.write(tty, $0, 1) }
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while POSIX.read(tty, &byte, 1) == 1, byte != 0x0a, byte != 0x0d { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// JSON output for programs.
enum JSONOutput {
    static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        Terminal.write(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// One compact JSON object on one line (JSON Lines), written at once so a reader never sees half of it.
    static func printLine(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        Terminal.write(String(decoding: data, as: UTF8.self))
    }
}
