import Foundation
import GRDB
import WalletOrders

// The store's file on disk: where a read-only open may read, waiting out another process's brief
// locks, whether the file and folder can be written, and SQLite's errors as WalletOrdersError.
extension SQLiteOrderStore {
    /// The path to open a store read-only with: the file itself when SQLite can keep its shared
    /// memory (`-shm`) beside it; when the file or its folder is read-only (a read-only mount,
    /// mode 444), an `immutable=1` URI, which reads the file without locks or `-shm`. That is
    /// exact only for a store whose WAL was checkpointed (every clean ``close()``), so a
    /// leftover non-empty `-wal` there is refused rather than silently ignored.
    static func readOnlyPath(_ url: URL) throws -> (path: String, immutable: Bool) {
        let path = url.path
        let files = FileManager.default
        try checkNotSpecial(url)
        guard files.fileExists(atPath: path) else {
            throw WalletOrdersError(
                .storeUnavailable, "There is no order store at \(path); a read-only question never creates one.",
                hint: "Check the store location (or WALLET_ORDERS_STORE), or save an order first.")
        }
        let folder = url.deletingLastPathComponent().path
        if files.isWritableFile(atPath: folder) && files.isWritableFile(atPath: path) { return (path, false) }
        let wal = path + "-wal"
        if let size = (try? files.attributesOfItem(atPath: wal))?[.size] as? Int, size > 0 {
            throw WalletOrdersError(
                .storeReadOnly,
                "The order store \(path) is read-only and was not closed cleanly: its last changes are still in \(wal), which can't be merged here. Nothing was read.",
                hint: "Open it once where it is writable (any store command) to merge them, or copy the .sqlite and -wal files to a writable folder.")
        }
        var components = URLComponents()
        components.scheme = "file"
        components.path = path
        components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        return (components.string ?? "file:\(path)?immutable=1", true)
    }

    /// Runs `operation` again while it fails with SQLITE_BUSY or SQLITE_LOCKED before `deadline`.
    ///
    /// For the steps SQLite's busy handler doesn't cover: the switch to WAL and a transaction
    /// that began as a read (GRDB's migrator) both get SQLITE_BUSY at once when another
    /// process holds the lock, where waiting for it is what the caller wants.
    static func retryingWhileBusy<T>(until deadline: Date, _ operation: () throws -> T) throws -> T {
        var pause: useconds_t = 2_000
        while true {
            do {
                return try operation()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                guard Date() < deadline else { throw error }
                usleep(pause + useconds_t.random(in: 0...pause))
                pause = min(pause * 2, 100_000)
            }
        }
    }

    /// Creates the store's file empty with mode 0600 when there is none, before SQLite opens it:
    /// the store holds every order's `authenticationToken` and the customer link secret, and
    /// SQLite gives its `-wal` and `-shm` files the mode of the database file. An existing file
    /// is left as it is (``exposure(of:)`` says when others can read it).
    static func createPrivately(_ url: URL) {
        let descriptor = open(url.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 { try? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).close() }
    }

    /// A warning when users other than the owner can read or write the store's file (or the
    /// `-wal`/`-shm` beside it), else `nil`.
    static func exposure(of url: URL) -> String? {
        for path in [url.path, url.path + "-wal", url.path + "-shm"] {
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            let mode = String(status.st_mode & 0o777, radix: 8)
            return
                "The order store file \(path) can be read by other users (mode \(mode)): it holds every order's authenticationToken and the customer link secret. Restrict it: chmod 600 \(url.path)*"
        }
        return nil
    }

    /// Throws ``WalletOrdersError/Code/storeUnavailable`` when the store's path is a FIFO, socket,
    /// device or folder: SQLite would wait on a FIFO for a writer (a start-up that never ends).
    static func checkNotSpecial(_ url: URL) throws {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return }
        let what: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: what = "a folder"
        case S_IFIFO: what = "a FIFO (named pipe)"
        case S_IFSOCK: what = "a socket"
        default: what = "a device"
        }
        throw WalletOrdersError(
            .storeUnavailable, "The order store \(url.path) is \(what), not a database file; it was not opened.",
            hint: "Give as the store location the path of an SQLite file, or of one to create.")
    }

    /// Throws ``WalletOrdersError/Code/storeReadOnly`` before SQLite tries when the file, or the
    /// folder that would hold it and its `-wal`/`-shm` companions, can't be written.
    static func checkWritable(_ url: URL) throws {
        try checkNotSpecial(url)
        let files = FileManager.default
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw WalletOrdersError(
                .storeUnavailable,
                "Cannot open the order store \(url.path): its folder \(folder) doesn't exist (an explicit store location is never created).",
                hint: "Create the folder (mkdir -p \(folder)), or fix the store location (or WALLET_ORDERS_STORE).")
        }
        let fileExists = files.fileExists(atPath: url.path)
        let blocked = fileExists ? url.path : folder
        if !files.isWritableFile(atPath: blocked) || !files.isWritableFile(atPath: folder) {
            let what = fileExists && files.isWritableFile(atPath: folder) ? "file" : "folder"
            throw WalletOrdersError(
                .storeReadOnly,
                "The order store \(url.path) can't be written: its \(what) \(what == "file" ? url.path : folder) is read-only (permissions or a read-only file system). Nothing was changed.",
                hint: "Make the \(what) writable, or choose another store location (or WALLET_ORDERS_STORE).")
        }
    }

    /// SQLite's and GRDB's errors as ``WalletOrdersError``, each with what happened, to which file, and what to do.
    static func storeError(_ error: any Error, path: String, doing: String, busyTimeout: TimeInterval) -> WalletOrdersError {
        if let error = error as? WalletOrdersError { return error }
        guard let database = error as? DatabaseError else {
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) the order store \(path): \(error)", underlying: error)
        }
        switch database.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return WalletOrdersError(
                .storeCorrupt,
                "\(path) is not an order store: the file is not a SQLite database or is damaged (\(database.message ?? "\(database.resultCode)")). It was not changed.",
                hint: "Check the store location (or WALLET_ORDERS_STORE); restore the file from a backup if it was a store.",
                underlying: database)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) the order store \(path): another process kept it locked for longer than the \(String(format: "%g", busyTimeout)) s this one waits; nothing was written.",
                hint: "Try again when the other wallet-orders process has finished, or give a longer busy timeout.", underlying: database)
        case .SQLITE_FULL:
            return WalletOrdersError(
                .storeFull,
                "Could not \(doing) the order store \(path): the file system holding it is full. The transaction was rolled back; nothing of it was written, and what was stored before is intact.",
                hint: "Free space on that file system (or move the store), then save these archives again.", underlying: database)
        case .SQLITE_READONLY:
            return WalletOrdersError(
                .storeReadOnly,
                "Could not \(doing) the order store \(path): it is read-only (\(database.message ?? "\(database.resultCode)")). Nothing was changed.",
                hint: "Make the file and its folder writable, or choose another store location (or WALLET_ORDERS_STORE).",
                underlying: database)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) the order store \(path): \(database.message ?? "\(database.resultCode)").",
                hint: "Check that the folder exists and that the file and its folder are writable.", underlying: database)
        default:
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) the order store \(path): \(database)", underlying: database)
        }
    }
}
