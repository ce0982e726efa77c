public import Foundation

/// Ready-made inputs for the batch builders: a JSON Lines file read line by line, or a folder of
/// JSON files (`order.json` documents for orders, per-pass fields for passes).
public enum BatchInputs {
    /// The longest line read: an `order.json` can't be larger than a whole archive may be.
    public static let maximumLineBytes = ArchiveLimits.maximumBundleBytes

    /// The orders of a JSON Lines file, one `order.json` document per line, read as the batch
    /// goes (64 KiB at a time: memory does not grow with the file). Blank lines are skipped;
    /// each order's origin is its line number. A line longer than ``maximumLineBytes`` is not
    /// kept: it becomes an ``BatchInput/unreadable(origin:error:)`` input.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` when the file can't be opened.
    public static func jsonLines(at url: URL) throws -> JSONLinesInputs {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw WalletOrdersError(
                .fileAccess, "Cannot open '\(url.path)': \(String(cString: strerror(errno))).", hint: "Check the path.")
        }
        return JSONLinesInputs(reader: LineReader(descriptor: descriptor, closeWhenDone: true, name: url.path))
    }

    /// The orders of JSON Lines read from an open file descriptor (standard input is 0), which
    /// is not closed.
    public static func jsonLines(fileDescriptor: Int32) -> JSONLinesInputs {
        JSONLinesInputs(reader: LineReader(descriptor: fileDescriptor, closeWhenDone: false, name: "standard input"))
    }

    /// The `*.json` files directly inside `directory` (not below it; hidden files skipped), in
    /// byte order of their names; each order's origin is its file name. Each file is read when
    /// its turn comes; one that can't be read becomes an
    /// ``BatchInput/unreadable(origin:error:)`` input.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` when the folder can't be listed.
    public static func jsonFiles(in directory: URL) throws -> BatchSynchronousInputs<LazyMapSequence<[String], BatchInput>> {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        } catch {
            throw WalletOrdersError(
                .fileAccess, "Cannot list '\(directory.path)': \(error.localizedDescription)", hint: "Check the path.")
        }
        let folder = directory.path
        return BatchSynchronousInputs(
            names.lazy.map { name in
                let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                    return .unreadable(
                        origin: .file(name),
                        error: WalletOrdersError(.invalidSource, "'\(path)' is not a regular file.", hint: "Orders are regular files."))
                }
                guard Int(info.st_size) < maximumLineBytes else {
                    return .unreadable(
                        origin: .file(name),
                        error: WalletOrdersError(
                            .bundleTooLarge, "'\(name)' is \(info.st_size) bytes; an order.json must be under 5 MB.",
                            hint: "Wallet refuses orders of 5 MB or more."))
                }
                do {
                    return BatchInput(origin: .file(name), orderJSON: try BoundedFile.read(path, as: .orderFile, regularFileOnly: true))
                } catch {
                    return .unreadable(origin: .file(name), error: WalletOrdersError.wrapping(error))
                }
            })
    }
}

/// The orders of a JSON Lines file (see ``BatchInputs/jsonLines(at:)``). Iterate once.
public struct JSONLinesInputs: AsyncSequence, Sendable {
    package let reader: LineReader

    /// Makes the iterator; there is one pass over the file.
    public func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    /// Reads the next non-blank line.
    public struct Iterator: AsyncIteratorProtocol {
        package let reader: LineReader
        /// The next order, `nil` at the end of the file.
        /// - Throws: ``WalletOrdersError/Code/fileAccess`` when reading fails.
        public mutating func next() async throws -> BatchInput? { try reader.nextInput() }
    }
}

/// Reads lines from a file descriptor through one fixed buffer.
package final class LineReader: @unchecked Sendable {  // used by one iterator at a time (single pass), never concurrently
    private let descriptor: Int32
    private let closeWhenDone: Bool
    private let name: String
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var lineNumber = 0

    package init(descriptor: Int32, closeWhenDone: Bool, name: String) {
        self.descriptor = descriptor
        self.closeWhenDone = closeWhenDone
        self.name = name
    }

    deinit {
        if closeWhenDone { close(descriptor) }
    }

    /// The next non-blank line as an input, or `nil` at the end.
    package func nextInput() throws -> BatchInput? {
        while let (line, tooLong) = try nextLine() {
            lineNumber += 1
            if tooLong {
                return .unreadable(
                    origin: .line(lineNumber),
                    error: WalletOrdersError(
                        .bundleTooLarge, "The line is longer than \(BatchInputs.maximumLineBytes) bytes; an order.json must be under 5 MB.",
                        hint: "Wallet refuses orders of 5 MB or more."))
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            var bytes = line
            if bytes.last == 0x0D { bytes.removeLast() }
            return BatchInput(origin: .line(lineNumber), orderJSON: bytes)
        }
        return nil
    }

    /// The next line without its `\n`, and whether it was cut for being too long; `nil` at the end.
    private func nextLine() throws -> ([UInt8], Bool)? {
        var line: [UInt8] = []
        var tooLong = false
        while true {
            if start < end {
                let found = buffer[start..<end].firstIndex(of: 0x0A)
                let stop = found ?? end
                if !tooLong {
                    if line.count + (stop - start) > BatchInputs.maximumLineBytes {
                        tooLong = true
                        line = []
                    } else {
                        line.append(contentsOf: buffer[start..<stop])
                    }
                }
                if let found {
                    start = found + 1
                    return (line, tooLong)
                }
                start = end
            }
            if atEnd { return nil }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw WalletOrdersError(.fileAccess, "Reading '\(name)' failed: \(String(cString: strerror(errno))).")
            }
            start = 0
            end = count
            if count == 0 {
                atEnd = true
                // A last line without a final newline still counts.
                return line.isEmpty && !tooLong ? nil : (line, tooLong)
            }
        }
    }
}
