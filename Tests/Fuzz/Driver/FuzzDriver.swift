import Foundation
import WalletOrdersFuzzTargets

#if FUZZING
    import CWalletOrdersFuzzer
#endif

/// `wallet-orders-fuzz --target=NAME [ARGS...]`, or `wallet-orders-fuzz --make-seeds=FOLDER`
/// (writes every target's seed corpus into `FOLDER/NAME/`, see ``FuzzSeeds``).
///
/// Built with `-sanitize=fuzzer,address -DFUZZING` (`make fuzz`): libFuzzer's driver, fuzzing the
/// one target named; ARGS are libFuzzer's (flags, corpus folders, or files to replay). libFuzzer
/// ignores arguments that start with `--`, and passes them on to the processes it starts (with
/// `-fork` or `-jobs`), so `--target=` reaches them too.
///
/// Built normally (`swift build`): replays files (or every file in folders) through the target
/// and says which break an invariant; no libFuzzer needed.
@main
enum FuzzDriver {
    static func main() {
        let arguments = CommandLine.arguments
        if let option = arguments.dropFirst().first(where: { $0.hasPrefix("--make-seeds=") }) {
            let folder = URL(fileURLWithPath: String(option.dropFirst("--make-seeds=".count)), isDirectory: true)
            do {
                let counts = try FuzzSeeds.write(to: folder)
                for target in FuzzTarget.allCases { print("\(target.rawValue): \(counts[target] ?? 0) seed(s)") }
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("wallet-orders-fuzz: writing the seeds failed: \(error)\n".utf8))
                exit(1)
            }
        }
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        guard let option = arguments.dropFirst().first(where: { $0.hasPrefix("--target=") }),
            let target = FuzzTarget(rawValue: String(option.dropFirst("--target=".count)))
        else {
            FileHandle.standardError.write(Data("usage: wallet-orders-fuzz --target=NAME [ARGS...]; NAME is one of \(names)\n".utf8))
            exit(2)
        }
        selected = target
        target.prepare()
        #if FUZZING
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
        #else
            exit(replay(target, paths: arguments.dropFirst().filter { !$0.hasPrefix("--") }))
        #endif
    }

    /// The target this process fuzzes; set once, before the first input.
    nonisolated(unsafe) static var selected: FuzzTarget = .json

    static func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("wallet-orders-fuzz: no such file: \(path)\n".utf8))
                return 2
            }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var failures = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            do {
                try target.run(Array(data))
            } catch {
                failures += 1
                print("\(file): \(error)")
            }
        }
        print("\(target.rawValue): \(files.count) input(s) replayed, \(failures) broke an invariant")
        return failures == 0 ? 0 : 1
    }
}

/// libFuzzer's callback: one input through the selected target; a broken invariant is a crash.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try FuzzDriver.selected.run(bytes)
    } catch {
        fatalError("invariant broken: \(error)")
    }
    return 0
}

#if FUZZING
    /// Referenced by the libFuzzer runtime's own `main`, which the build links but SwiftPM replaces
    /// with this executable's entry point (that calls `LLVMFuzzerRunDriver`).
    @_cdecl("LLVMFuzzerTestOneInput")
    func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        fuzzOneInput(data, size)
    }
#endif
