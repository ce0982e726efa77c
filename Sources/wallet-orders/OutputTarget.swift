import Foundation
import WalletOrders

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A user-named output (`--out`): `-` for standard output, else a path. Every command writes
/// what the user named through ``write(_:mode:)``, so the policy is the same everywhere:
///
/// - `-`: standard output (refused when it is a terminal or closed);
/// - nothing there, or a regular file: replaced atomically (a temporary file, then a rename);
/// - a device or a FIFO, or a symbolic link to one: written through, as `cat > PATH` would;
/// - a symbolic link to a regular file: that file is replaced; the link stays;
/// - a folder, a socket, a link to nothing, a missing folder: refused with what to do instead.
///
/// The library's `OutputFile` does the writing; this adds `-` and the checks only a command
/// knows about (the source folder being built).
enum OutputTarget: Equatable, CustomStringConvertible {
    case standardOutput
    case path(String)

    /// `-` is standard output; anything else a path.
    init(_ argument: String) {
        self = argument == "-" ? .standardOutput : .path(argument)
    }

    /// For `--help` and the README: what `--out` does with what is already at the path.
    static let policy = """
        Output (--out): '-' is standard output. A regular file is replaced \
        atomically (a temporary file, then a rename). A device or a FIFO, or a \
        symbolic link to one, is written through as `cat > PATH` would: \
        /dev/null stays a device. A symbolic link to a regular file stays a \
        link; the file it points to is replaced. A folder, a socket or a link \
        to nothing is refused.
        """

    var description: String {
        switch self {
        case .standardOutput: "standard output"
        case .path(let path): path
        }
    }

    /// Where the command's own messages go: standard error when the output is standard output.
    var messages: Terminal.Stream { self == .standardOutput ? .standardError : .standardOutput }

    /// Fails before any work when writing can't succeed: standard output closed or a terminal; a
    /// folder, a socket, a missing folder; a path inside `source` (the folder being built),
    /// compared by real paths, so `SRC/../SRC/x` and symbolic links are caught too.
    func check(notInside source: String? = nil) throws {
        switch self {
        case .standardOutput:
            if StandardStream.wasClosed(1) {
                throw WalletOrdersError(
                    .fileAccess, "Standard output is closed; there is nowhere to write the archive.",
                    hint: "Redirect it to a file (> NAME.order), or give --out a file name.")
            }
            if isatty(1) == 1 {
                throw WalletOrdersError(
                    .fileAccess, "Standard output is a terminal; an archive is binary and is not written there.",
                    hint: "Redirect it (> NAME.order), pipe it (| …), or give --out a file name.")
            }
        case .path(let path):
            if let source { try Self.refuse(path, inside: source) }
            _ = try OutputFile.check(path)
        }
    }

    /// Writes `bytes` (a file this creates gets `mode`, less the umask).
    func write(_ bytes: [UInt8], mode: Int = 0o644) throws {
        switch self {
        case .standardOutput:
            if let reason = OutputFile.writeAll(bytes, to: 1) {
                throw WalletOrdersError(.fileAccess, "Cannot write to standard output: \(String(cString: strerror(reason))).")
            }
        case .path(let path):
            try OutputFile.write(bytes, to: path, mode: mode)
        }
    }

    /// Throws when `path` resolves to `folder` or to something inside it (`what` names the
    /// folder in the message: the source folder, the template folder).
    static func refuse(_ path: String, inside folder: String, named what: String = "source folder") throws {
        guard let folderReal = try? OutputFile.realPath(folder), let resolved = resolved(path) else { return }
        guard resolved == folderReal || resolved.hasPrefix(folderReal == "/" ? "/" : folderReal + "/") else { return }
        var name = folder
        while name.count > 1 && name.hasSuffix("/") { name.removeLast() }
        if name == "." || name == "/" { name = "../out" }
        let example = what == "source folder" ? name + ".order" : name + "-out"
        throw WalletOrdersError(
            .fileAccess, "'\(path)' is inside the \(what) '\(folder)'; writing there would change the orders being built.",
            hint: "Write outside the folder, e.g. --out '\(example)'.")
    }

    /// Makes the output folder `path` (and the folders on the way) unless it exists; refuses a
    /// path that holds something else.
    static func makeFolder(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw WalletOrdersError(
                    .fileAccess, "'\(path)' is not a folder; --out names the folder the files are written into.",
                    hint: "Give --out a folder (it is made when missing), not an existing file.")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw WalletOrdersError(
                .fileAccess, "Cannot make the output folder '\(path)': \(error.localizedDescription)", hint: "Check the path and its permissions.")
        }
    }

    /// The real path `path` names: its own when it exists, else its folder's plus its name;
    /// `nil` when neither resolves (writing will fail and say why).
    private static func resolved(_ path: String) -> String? {
        if let real = try? OutputFile.realPath(path) { return real }
        guard let folder = try? OutputFile.realPath(OutputFile.parent(of: path)),
            let name = path.split(separator: "/").last
        else { return nil }
        return folder == "/" ? "/" + name : folder + "/" + name
    }
}

/// The standard descriptors as the tool was started with them.
enum StandardStream {
    /// Whether descriptor `descriptor` (0, 1 or 2) was closed when the tool started. Closed, it
    /// stays closed, or the runtime's own event descriptors (which take the lowest free numbers)
    /// sit in its place and show as `anon_inode:` in /proc/self/fd.
    static func wasClosed(_ descriptor: Int32) -> Bool {
        if fcntl(descriptor, F_GETFD) == -1 && errno == EBADF { return true }
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)") else { return false }
        return target.hasPrefix("anon_inode:")
    }
}
