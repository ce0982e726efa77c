import Foundation
import Testing
@testable import WalletOrders
import WalletOrdersTestSupport

/// A source folder is walked with `lstat`, then each file is opened: what is opened must still be
/// the regular file the walk saw. These are the swaps an attacker with write access to the folder
/// makes between the two calls (a link to a secret, a FIFO that blocks the reader forever).
@Suite struct SourceSwapTests {
    @Test("A link swapped in for a listed file is refused, not followed")
    func linkIsNotFollowed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
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
        let folder = try TemporaryFolder()
        defer { folder.remove() }
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
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write(Array("{}".utf8), to: "order.json")
        #expect(try BoundedFile.read(file.path, as: .orderFile, regularFileOnly: true) == Array("{}".utf8))
    }
}
