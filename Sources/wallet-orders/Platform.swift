#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's `read(2)`, `write(2)` and `glob(3)` under one name on Linux (Glibc, Musl) and
/// macOS (Darwin), for the places where the tool's own `write`/`glob` would hide them.
enum POSIX {
    /// Sets `TZ=:/etc/localtime` when `TZ` is unset: the same zone, read once instead of on every
    /// call. libzip converts each entry's DOS time with `mktime(3)` when it opens an archive, and
    /// glibc, with `TZ` unset, `stat`s `/etc/localtime` on every such call to see whether it
    /// changed: seven system calls per archive, 6 % of a validation (`perf record`). Called first
    /// thing in `main`, before any thread starts (`setenv` is not thread-safe). Local times are
    /// what they were; only a change of `/etc/localtime` while the process runs goes unseen.
    static func readLocalTimeZoneOnce() {
        #if os(Linux)
            if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
        #endif
    }

    static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #elseif canImport(Musl)
            Musl.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }

    static func read(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, bytes, count)
        #elseif canImport(Musl)
            Musl.read(descriptor, bytes, count)
        #else
            Darwin.read(descriptor, bytes, count)
        #endif
    }

    /// The paths `pattern` matches, sorted (`glob(3)`), or none.
    static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        #if canImport(Glibc)
            let status = Glibc.glob(pattern, 0, nil, &result)
        #elseif canImport(Musl)
            let status = Musl.glob(pattern, 0, nil, &result)
        #else
            let status = Darwin.glob(pattern, 0, nil, &result)
        #endif
        guard status == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
    }
}
