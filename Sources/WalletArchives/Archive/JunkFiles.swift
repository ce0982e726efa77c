/// Files that never belong in an archive of either kind: Finder metadata, macOS resource forks,
/// placeholders and other hidden files. Building skips them; opening an archive names them.
package enum JunkFiles {
    /// Why a path is junk that never belongs in an archive (`.DS_Store`, `__MACOSX/`, dotfiles), or `nil`.
    ///
    /// It runs for every entry of every archive opened and every file of every source, so it reads
    /// the path's bytes once, a component at a time, without splitting it into strings.
    package static func reason(_ path: String, kind: ArchiveKind) -> String? {
        var macOSFolder = false
        var hidden = false
        var last: Substring.UTF8View?
        var utf8 = path.utf8[...]
        while !utf8.isEmpty {
            let end = utf8.firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            let component = utf8[..<end]
            utf8 = end == utf8.endIndex ? utf8[end...] : utf8[utf8.index(after: end)...]
            guard let first = component.first else { continue }  // an empty component ("a//b", "a/")
            last = component
            if first == UInt8(ascii: ".") { hidden = true }
            if first == UInt8(ascii: "_"), component.elementsEqual("__MACOSX".utf8) { macOSFolder = true }
        }
        if macOSFolder { return "macOS resource-fork folder (__MACOSX) is not part of \(kind.withArticle)" }
        if let last, last.first == UInt8(ascii: ".") {
            if last.elementsEqual(".DS_Store".utf8) { return "Finder metadata (.DS_Store) is not part of \(kind.withArticle)" }
            if last.elementsEqual(".gitkeep".utf8) { return "placeholder file (.gitkeep) is not part of \(kind.withArticle)" }
        }
        if hidden { return "hidden file or folder is not part of \(kind.withArticle)" }
        return nil
    }
}
