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
