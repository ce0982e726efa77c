public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a file is read as, and the most bytes it may hold: every file wallet-orders reads goes
/// through ``BoundedFile/read(_:as:)``, which checks the size with `fstat` before reading a byte,
/// so a hostile 8 GiB file costs a system call, not 8 GiB of memory.
public struct FileKind: Sendable, Hashable, CustomStringConvertible {
    /// What the file is, in messages: `archive`, `private key`, …
    public var name: String
    /// The largest size accepted, in bytes.
    public var maximumBytes: Int
    /// Why the limit is what it is, for the error's hint.
    public var reason: String

    /// Creates a kind of file.
    public init(name: String, maximumBytes: Int, reason: String) {
        self.name = name
        self.maximumBytes = maximumBytes
        self.reason = reason
    }

    public var description: String { name }

    /// A `.order` archive: ``ArchiveLimits/maximumArchiveFileBytes`` (8 MiB), more than any
    /// archive Wallet accepts can be.
    public static let archive = FileKind(
        name: "archive", maximumBytes: ArchiveLimits.maximumArchiveFileBytes,
        reason: "Wallet accepts orders whose files add up to less than 5 MB; no such archive comes near 8 MiB.")
    /// A signed archive of `kind`: ``archive`` for orders; for passes ``ArchiveLimits/maximumPassFileBytes``
    /// (150 MB, Apple's limit on a `.pkpasses` bundle of up to ten passes).
    public static func archive(for kind: ArchiveKind) -> FileKind {
        switch kind {
        case .order: archive
        case .pass: passArchive
        }
    }
    /// A `.pkpass` or `.pkpasses` file: 150 MB.
    public static let passArchive = FileKind(
        name: "pass", maximumBytes: ArchiveLimits.maximumPassFileBytes,
        reason: "Wallet takes up to 150 MB of passes at once (a .pkpasses bundle); no single pass comes near that.")
    /// One file of an order source folder (or a batch input's order.json): under 5 MB, Wallet's
    /// limit for the whole bundle (``ArchiveLimits/maximumBundleBytes``).
    public static let orderFile = FileKind(
        name: "order file", maximumBytes: ArchiveLimits.maximumBundleBytes,
        reason: "Wallet accepts orders whose files add up to less than 5 MB, so no single file can be larger.")
    /// One file of a pass source folder: up to ``ArchiveLimits/maximumPassFileBytes``.
    public static let passFile = FileKind(
        name: "pass file", maximumBytes: ArchiveLimits.maximumPassFileBytes,
        reason: "Wallet takes up to 150 MB of passes at once, so no single file of a pass can be larger.")
    /// A settings file (`wallet-orders serve --config`): 1 MiB (real ones are a few kB).
    public static let settings = FileKind(
        name: "settings file", maximumBytes: 1 << 20, reason: "A settings file holds a few dozen settings; 1 MiB is far more.")
    /// A certificate, chain, private key, `.p12` or trust root: 1 MiB (real ones are a few kB;
    /// a chain file tens of kB).
    public static let certificate = FileKind(
        name: "certificate or key file", maximumBytes: 1 << 20,
        reason: "Certificates, keys and .p12 files are a few kilobytes.")
    /// A trusted root certificate given with `--trust-root`, with the limit of ``certificate``.
    public static let trustRoot = FileKind(name: "trust root", maximumBytes: certificate.maximumBytes, reason: certificate.reason)
    /// A file of merchant API keys (`serve --api-key-file`), one key and its scope a line: 1 MiB.
    public static let apiKeys = FileKind(
        name: "API key file", maximumBytes: 1 << 20, reason: "An API key file holds a line per merchant key; 1 MiB is far more.")
    /// A passphrase file: 64 KiB.
    public static let passphrase = FileKind(name: "passphrase file", maximumBytes: 64 << 10, reason: "A passphrase is a line of text.")
}

/// Reading whole files within a ``FileKind``'s limit.
public enum BoundedFile {
    /// Reads the file at `path`, refusing it before reading when it is larger than `kind` allows.
    ///
    /// A regular file is measured with `fstat` and read in one go; a FIFO, a terminal or a device
    /// (`/dev/stdin`) is read up to one byte past the limit and refused there. A folder is named
    /// as one.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileTooLarge``, or ``WalletOrdersError/Code/fileAccess``
    ///   when the file is missing, a folder, or unreadable.
    public static func read(_ path: String, as kind: FileKind) throws -> [UInt8] {
        try read(path, as: kind, regularFileOnly: false)
    }

    /// ``read(_:as:)``, and with `regularFileOnly` the file must still be the regular file a
    /// walk saw with `lstat` when it is opened: a symbolic link (`O_NOFOLLOW`), FIFO or device
    /// swapped in between is refused (``WalletOrdersError/Code/invalidSource``), never followed
    /// or waited on.
    package static func read(_ path: String, as kind: FileKind, regularFileOnly: Bool) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | (regularFileOnly ? O_NOFOLLOW | O_NONBLOCK : 0))
        return try read(descriptor, path: path, as: kind, regularFileOnly: regularFileOnly)
    }

    /// ``read(_:as:regularFileOnly:)`` with `regularFileOnly`, for the entry `name` of the folder
    /// open as `folder` (`openat`): a folder on the way swapped for a link after it was opened
    /// can't redirect the read. `path` names the file in messages.
    package static func read(_ name: String, inFolder folder: Int32, path: String, as kind: FileKind) throws -> [UInt8] {
        let descriptor = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        return try read(descriptor, path: path, as: kind, regularFileOnly: true)
    }

    /// Reads the file just opened as `descriptor` (closing it), or throws for the `errno` of a
    /// failed open (`descriptor` < 0).
    private static func read(_ descriptor: Int32, path: String, as kind: FileKind, regularFileOnly: Bool) throws -> [UInt8] {
        if descriptor < 0, regularFileOnly, errno == ELOOP { throw changedUnderneath(path, kind) }
        guard descriptor >= 0 else {
            let reason = errno
            throw WalletOrdersError(
                .fileAccess,
                reason == ENOENT
                    ? "The \(kind) '\(path)' does not exist." : "Cannot read the \(kind) '\(path)': \(String(cString: strerror(reason))).",
                hint: reason == ENOENT ? "Check the path." : "Check the file's permissions.")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw WalletOrdersError(.fileAccess, "Cannot read the \(kind) '\(path)': \(String(cString: strerror(errno))).")
        }
        let type = status.st_mode & S_IFMT
        if regularFileOnly, type != S_IFREG { throw changedUnderneath(path, kind) }
        if type == S_IFDIR {
            throw WalletOrdersError(.fileAccess, "'\(path)' is a folder, not a \(kind).", hint: "Pass the file itself.")
        }
        if type == S_IFREG, Int(status.st_size) > kind.maximumBytes {
            throw tooLarge(path, kind, size: Int(status.st_size))
        }
        // A regular file: its size and one byte more (to notice one that grew meanwhile); anything
        // else: the limit and one byte more.
        var bytes = [UInt8](repeating: 0, count: (type == S_IFREG ? Int(status.st_size) : kind.maximumBytes) + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress! + total, buffer.count - total)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw WalletOrdersError(.fileAccess, "Reading the \(kind) '\(path)' failed: \(String(cString: strerror(errno))).")
            }
            if count == 0 { break }
            total += count
        }
        if total > kind.maximumBytes { throw tooLarge(path, kind, size: nil) }
        bytes.removeSubrange(total...)
        return bytes
    }

    /// ``read(_:as:)`` for a file that must be a regular file (or a link to one): settings, keys,
    /// certificates and lists a command reads once at start-up. A FIFO, socket or device is
    /// refused (``WalletOrdersError/Code/fileAccess``) without waiting on it: opening a FIFO for
    /// reading waits for a writer, which would hold the start-up with no word of why.
    public static func readRegularFile(_ path: String, as kind: FileKind) throws -> [UInt8] {
        // O_NONBLOCK: the open itself returns at once for a FIFO; fstat then names what it is.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if descriptor >= 0 {
            var status = stat()
            let type = fstat(descriptor, &status) == 0 ? status.st_mode & S_IFMT : S_IFREG
            if type != S_IFREG && type != S_IFDIR {
                close(descriptor)
                throw notRegular(path, kind, type: type)
            }
        }
        return try read(descriptor, path: path, as: kind, regularFileOnly: false)
    }

    /// The error for a path that is a FIFO, socket or device where a regular file is needed.
    package static func notRegular(_ path: String, _ kind: FileKind, type: mode_t) -> WalletOrdersError {
        let what =
            switch type {
            case S_IFIFO: "a FIFO (named pipe)"
            case S_IFSOCK: "a socket"
            case S_IFCHR, S_IFBLK: "a device"
            default: "not a regular file"
            }
        return WalletOrdersError(
            .fileAccess, "The \(kind) '\(path)' is \(what), not a regular file; it was not read.",
            hint: "Give a regular file: it is read once, at start-up, and a pipe or device would hold the start-up until something writes to it.")
    }

    /// Reads `url` (a file URL) as `kind`.
    public static func read(_ url: URL, as kind: FileKind) throws -> [UInt8] {
        try read(url.path, as: kind)
    }

    /// The error for a path that was a regular file when listed and is something else when opened.
    package static func changedUnderneath(_ path: String, _ kind: FileKind) -> WalletOrdersError {
        WalletOrdersError(
            .invalidSource,
            "The \(kind) '\(path)' was a regular file when listed and is not one now (a link, pipe or device swapped in); it was not read.",
            hint: "Make sure nothing changes the folder while it is read, and that it holds regular files only.")
    }

    package static func tooLarge(_ path: String, _ kind: FileKind, size: Int?) -> WalletOrdersError {
        let sizeText = size.map { "is \(ByteCountText.format($0))" } ?? "holds more than \(ByteCountText.format(kind.maximumBytes))"
        return WalletOrdersError(
            .fileTooLarge,
            "The \(kind) '\(path)' \(sizeText), over the limit of \(ByteCountText.format(kind.maximumBytes)) (\(kind.maximumBytes) bytes), so it was not read.",
            hint: kind.reason)
    }
}

/// A folder open as a descriptor, walked without following links: each entry is looked at and
/// opened relative to the folder (`fstatat`, `openat` with `O_NOFOLLOW`), so swapping a folder on
/// the way for a link, after it was listed, can't make a walk read outside the tree it started in.
package struct OpenFolder: ~Copyable {
    package let descriptor: Int32
    /// The folder's path, for messages.
    package let path: String

    /// Opens the folder at `path` (a link given as the path itself is followed: the caller named it).
    package init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else {
            throw WalletOrdersError(.fileAccess, "Cannot open the folder '\(path)': \(String(cString: strerror(errno))).")
        }
        self.init(descriptor: descriptor, path: path)
    }

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// The names of the folder's entries, without `.` and `..`, sorted.
    package func names() throws -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw WalletOrdersError(.fileAccess, "Cannot list '\(path)': \(String(cString: strerror(errno))).")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The `lstat` of the entry `name` (a link is described, not followed).
    package func status(of name: String) throws -> stat {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw WalletOrdersError(.fileAccess, "Cannot read '\(path)/\(name)': \(String(cString: strerror(errno))).")
        }
        return info
    }

    /// The subfolder `name`, which must still be a folder, not a link to one.
    package func subfolder(_ name: String) throws -> OpenFolder {
        let descriptor = openat(self.descriptor, name, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let reason = errno
            if reason == ELOOP || reason == ENOTDIR {
                throw WalletOrdersError(
                    .invalidSource, "'\(path)/\(name)' was a folder when listed and is not one now (a link swapped in); it was not read.",
                    hint: "Make sure nothing changes the folder while it is read, and that it holds regular files only.")
            }
            throw WalletOrdersError(.fileAccess, "Cannot open the folder '\(path)/\(name)': \(String(cString: strerror(reason))).")
        }
        return OpenFolder(descriptor: descriptor, path: path + "/" + name)
    }

    /// The regular file `name` within `kind`'s limit (see ``BoundedFile/read(_:inFolder:path:as:)``).
    package func read(_ name: String, as kind: FileKind) throws -> [UInt8] {
        try BoundedFile.read(name, inFolder: descriptor, path: path + "/" + name, as: kind)
    }
}

/// `read(2)` under a name that doesn't clash with the `read` methods in scope.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
