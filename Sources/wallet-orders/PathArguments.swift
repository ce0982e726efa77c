import Foundation
import WalletOrders

/// The one path grammar of `validate`, `verify` and `inspect`: a `.order` archive, a `.pkpass`
/// pass or `.pkpasses` bundle, an order or pass source folder (holding `order.json` or
/// `pass.json`), a folder searched recursively for `*.order`, `*.pkpass` and `*.pkpasses`, or a
/// glob (quoted, so the tool expands it: `'out/*.order'`). Paths keep the order given; what a
/// folder or glob finds is sorted.
enum PathArguments {
    /// A path to check, and what kind it is.
    enum Target {
        case archive(String)
        case source(String)
        /// A `.pkpass` file.
        case pass(String)
        /// A `.pkpasses` bundle.
        case passBundle(String)
        /// A folder holding `pass.json`.
        case passSource(String)
        /// A path that doesn't exist, a glob that matches nothing, or a folder with neither
        /// `order.json` nor archives.
        case missing(String, reason: String)

        var path: String {
            switch self {
            case .archive(let path), .source(let path), .pass(let path), .passBundle(let path), .passSource(let path),
                .missing(let path, _):
                path
            }
        }
    }

    /// The one hint for a path that names nothing to check.
    static let missingHint =
        "Pass a .order archive, a .pkpass or .pkpasses file, a folder of archives, or a quoted glob ('out/*.order'); validate also takes a source folder."

    /// Expands globs and folders; keeps the order given.
    static func expand(_ paths: [String]) -> [Target] {
        var targets: [Target] = []
        for path in paths {
            let isGlob = path.contains(where: { "*?[".contains($0) })
            let matches = isGlob ? POSIX.glob(path) : [path]
            if matches.isEmpty { targets.append(.missing(path, reason: "'\(path)' matches nothing.")) }
            for match in matches {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: match, isDirectory: &isDirectory) else {
                    targets.append(.missing(match, reason: "'\(match)' does not exist."))
                    continue
                }
                if !isDirectory.boolValue {
                    targets.append(file(match))
                } else if FileManager.default.fileExists(atPath: match + "/order.json") {
                    targets.append(.source(match))
                } else if FileManager.default.fileExists(atPath: match + "/pass.json") {
                    targets.append(.passSource(match))
                } else {
                    let found = (FileManager.default.enumerator(atPath: match)?.compactMap { $0 as? String } ?? [])
                        .filter { $0.hasSuffix(".order") || $0.hasSuffix(".pkpass") || $0.hasSuffix(".pkpasses") }.sorted()
                    if found.isEmpty {
                        targets.append(
                            .missing(match, reason: "'\(match)' is a folder with no order.json or pass.json and no archives."))
                    }
                    targets += found.map { file((match as NSString).appendingPathComponent($0)) }
                }
            }
        }
        return targets
    }

    /// A file, by its extension: a pass, a bundle of passes, or (any other name) an order.
    static func file(_ path: String) -> Target {
        let lowercased = path.lowercased()
        if lowercased.hasSuffix(".pkpass") { return .pass(path) }
        if lowercased.hasSuffix(".pkpasses") { return .passBundle(path) }
        return .archive(path)
    }

    /// The report of a path that names nothing: one `file.unreadable` error.
    static func missingReport(_ path: String, reason: String) -> ValidationReport {
        .unreadable(path, WalletOrdersError(.fileAccess, reason, hint: missingHint))
    }

    /// The report of a source folder given to a command that checks archives only.
    static func sourceFolderReport(_ path: String, command: String, kind: ArchiveKind = .order) -> ValidationReport {
        .unreadable(
            path,
            WalletOrdersError(
                .fileAccess, "'\(path)' is \(kind.withArticle) source folder, not a signed archive; \(command) reads archives.",
                hint: "Validate a source folder with `wallet-orders validate \(path)`, or build it into an archive first."))
    }
}
