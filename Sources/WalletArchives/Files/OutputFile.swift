import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing a file to a path someone named, without destroying what is there: the one place that
/// does it, for ``BuiltOrderArchive/write(to:)`` and every command of the `wallet-orders` tool.
///
/// What happens depends on what is at the path:
/// - nothing, or a regular file: the bytes go to a hidden temporary file in the same folder,
///   which is then renamed over the path (atomic: a reader sees the old file or the new one);
/// - a character or block device or a FIFO: the bytes are written through it, as `cat > PATH`
///   would (`/dev/null` stays a device; a write error such as ENOSPC on `/dev/full` is an error);
/// - a symbolic link: what it points to is written as above (a link to a regular file has its
///   target replaced; the link itself stays); a link to nothing is refused;
/// - a folder or a socket: refused, with what to do instead.
package enum OutputFile {
    /// What is at a path, following symbolic links.
    package enum Kind: Equatable, Sendable {
        /// Nothing: the file will be created (its folder exists).
        case missing
        /// A regular file (or a link to one, with `target` its resolved path).
        case regular(target: String)
        /// A device or a FIFO (or a link to one): written through.
        case special(String)
    }

    /// What writing to `path` would do, or the error it would end in; nothing is written. Call it
    /// before expensive work so that a bad path fails first.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` for a folder, a socket, a link to nothing,
    ///   or a path whose folder doesn't exist.
    package static func check(_ path: String) throws -> Kind {
        guard !path.isEmpty else {
            throw WalletOrdersError(.fileAccess, "The output path is empty.", hint: "Give a file name.")
        }
        var link = stat()
        guard lstat(path, &link) == 0 else {
            let reason = errno
            guard reason == ENOENT else { throw failure(path, reason) }
            let folder = parent(of: path)
            var info = stat()
            if stat(folder, &info) != 0 {
                throw WalletOrdersError(
                    .fileAccess, "Cannot write '\(path)': the folder '\(folder)' doesn't exist.",
                    hint: "Create it first (mkdir -p '\(folder)'), or write into a folder that exists.")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw WalletOrdersError(
                    .fileAccess, "Cannot write '\(path)': '\(folder)' is not a folder.", hint: "Write into a folder that exists.")
            }
            return .missing
        }
        var info = link
        if link.st_mode & S_IFMT == S_IFLNK {
            guard stat(path, &info) == 0 else {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                throw WalletOrdersError(
                    .fileAccess, "Cannot write '\(path)': it is a symbolic link to '\(target)', which doesn't exist.",
                    hint: "Point the link at an existing file, remove it, or write somewhere else.")
            }
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return .regular(target: link.st_mode & S_IFMT == S_IFLNK ? try realPath(path) : path)
        case S_IFDIR:
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            throw WalletOrdersError(
                .fileAccess, "'\(path)' is a folder; give a file name, e.g. '\(folder)/NAME.order'.",
                hint: "The output is one file; name it inside the folder.")
        case S_IFCHR: return .special("character device")
        case S_IFBLK: return .special("block device")
        case S_IFIFO: return .special("FIFO")
        case S_IFSOCK:
            throw WalletOrdersError(
                .fileAccess, "Cannot write '\(path)': it is a socket, which can't be opened as a file.",
                hint: "Give the path of a regular file, a FIFO or a device.")
        default:
            throw WalletOrdersError(.fileAccess, "Cannot write '\(path)': it is not a file, a FIFO or a device.")
        }
    }

    /// Writes `bytes` to `path` as described in ``OutputFile``; a file it creates gets `mode`
    /// (less the umask) from the start, so a private key is never readable by others.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` naming the path and the reason (ENOSPC's
    ///   "No space left on device", for one).
    package static func write(_ bytes: [UInt8], to path: String, mode: Int = 0o644) throws {
        switch try check(path) {
        case .missing: try replace(path, with: bytes, mode: mode)
        case .regular(let target): try replace(target, with: bytes, mode: mode)
        case .special:
            let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure(path, errno) }
            var info = stat()
            if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                // It became a regular file since it was checked: replace that instead.
                close(descriptor)
                try replace(try realPath(path), with: bytes, mode: mode)
                return
            }
            let written = writeAll(bytes, to: descriptor)
            let closed = close(descriptor) == 0 ? nil : errno
            if let reason = written ?? closed { throw failure(path, reason) }
        }
    }

    /// Writes all of `bytes` to an open descriptor, retrying after signals and partial writes.
    /// Returns `errno` when a write fails, `nil` when everything was written.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                #if canImport(Glibc)
                    let count = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #elseif canImport(Musl)
                    let count = Musl.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #else
                    let count = Darwin.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #endif
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
    }

    /// The canonical absolute path of an existing `path` (symbolic links, `.` and `..` resolved).
    package static func realPath(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw failure(path, errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folder `path` is in, as given (`.` for a bare name).
    package static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// A hidden temporary file beside `path`, renamed over it once complete.
    private static func replace(_ path: String, with bytes: [UInt8], mode: Int) throws {
        let folder = parent(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<8 {
            temporary = (folder == "/" ? "/" : folder + "/") + ".\(name.prefix(100)).\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw failure(path, errno) }
        let written = writeAll(bytes, to: descriptor)
        let closed = close(descriptor) == 0 ? nil : errno
        if let reason = written ?? closed {
            unlink(temporary)
            throw failure(path, reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = errno
            unlink(temporary)
            throw failure(path, reason)
        }
    }

    private static func failure(_ path: String, _ reason: Int32) -> WalletOrdersError {
        let hint: String? =
            switch reason {
            case ENOSPC, EDQUOT: "Free some space, or write somewhere else."
            case EACCES, EPERM, EROFS: "Check the folder's permissions, or write somewhere else."
            default: nil
            }
        return WalletOrdersError(.fileAccess, "Cannot write '\(path)': \(String(cString: strerror(reason))).", hint: hint)
    }
}
