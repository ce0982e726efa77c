import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// A source folder is walked entry by entry, then each file is opened: what is opened must still be
/// the regular file the walk saw, in the folder the walk opened. These are the swaps an attacker
/// with write access to the folder makes between the calls (a link to a secret, a FIFO that blocks
/// the reader forever, a subfolder replaced by a link to another tree).
@Suite(.temporaryFolder) struct SourceSwapTests {
    @Test("A link swapped in for a listed file is refused, not followed")
    func linkIsNotFollowed() throws {
        let folder = try TemporaryFolder.ofTest
        let secret = try folder.write(Array("secret".utf8), to: "secret.txt")
        let link = folder.file("logo.png")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: secret)
        #expect(throws: WalletOrdersError(.invalidSource, "")) {
            try BoundedFile.read(link.path, as: .orderFile, regularFileOnly: true)
        }
        // The public reader still follows links where the caller names the file itself.
        #expect(try BoundedFile.read(link.path, as: .orderFile) == Array("secret".utf8))
    }

    @Test("A FIFO swapped in for a listed file is refused at once, without waiting for a writer")
    func fifoIsNotWaitedOn() throws {
        let folder = try TemporaryFolder.ofTest
        let fifo = folder.file("order.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: WalletOrdersError(.invalidSource, "")) {
            try BoundedFile.read(fifo.path, as: .orderFile, regularFileOnly: true)
        }
        #expect(clock.now - started < .seconds(2))
    }

    @Test("A regular file reads as before")
    func regularFileReads() throws {
        let folder = try TemporaryFolder.ofTest
        let file = try folder.write(Array("{}".utf8), to: "order.json")
        #expect(try BoundedFile.read(file.path, as: .orderFile, regularFileOnly: true) == Array("{}".utf8))
    }

    @Test("A subfolder swapped for a link after it was listed is refused, not followed")
    func folderLinkIsNotFollowed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let elsewhere = try TemporaryFolder()
        defer { elsewhere.remove() }
        _ = try elsewhere.write(Array("secret".utf8), to: "order.strings")
        try FileManager.default.createDirectory(at: folder.file("en.lproj"), withIntermediateDirectories: false)
        let source = try OpenFolder(path: folder.url.path)
        #expect(try source.names() == ["en.lproj"])
        // Between the listing and the opening: the folder becomes a link to another tree.
        try FileManager.default.removeItem(at: folder.file("en.lproj"))
        try FileManager.default.createSymbolicLink(at: folder.file("en.lproj"), withDestinationURL: elsewhere.url)
        #expect(throws: WalletOrdersError(.invalidSource, "")) { _ = try source.subfolder("en.lproj") }
    }

    @Test("Files are read from the folder the walk opened, even when its path is moved and replaced by a link")
    func readsStayInTheOpenedFolder() throws {
        let folder = try TemporaryFolder.ofTest
        let tree = folder.file("source")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
        try Data("ours".utf8).write(to: tree.appendingPathComponent("en.lproj/order.strings"))
        let elsewhere = folder.file("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: elsewhere.appendingPathComponent("en.lproj/order.strings"))
        let source = try OpenFolder(path: tree.path)
        let lproj = try source.subfolder("en.lproj")
        // The opened tree moves away and a link to another tree takes its path.
        try FileManager.default.moveItem(at: tree, to: folder.file("moved"))
        try FileManager.default.createSymbolicLink(at: tree, withDestinationURL: elsewhere)
        #expect(try lproj.read("order.strings", as: .orderFile) == Array("ours".utf8))
    }
}
