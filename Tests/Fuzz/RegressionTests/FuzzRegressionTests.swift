import Foundation
import Testing
import WalletOrdersFuzzTargets
import WalletOrdersTestSupport

/// Every input saved under `Tests/Fuzz/Regressions/TARGET/` (crashes, hangs and broken invariants
/// the fuzzers found, now fixed) goes through its target again, so the bug can't come back.
/// The tests next to this one check what the code under test says about each input.
@Suite struct FuzzRegressionTests {
    static let regressions = Repository.tests.appendingPathComponent("Fuzz/Regressions", isDirectory: true)

    /// (target, file) for every saved input.
    static let inputs: [(FuzzTarget, String)] = FuzzTarget.allCases.flatMap { target in
        let folder = regressions.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { (target, $0) }
    }

    @Test(arguments: inputs.map { "\($0.0.rawValue)/\($0.1)" })
    func savedInputKeepsEveryInvariant(_ path: String) throws {
        let target = try #require(FuzzTarget(rawValue: String(path.prefix { $0 != "/" })))
        let bytes = try Array(Data(contentsOf: Self.regressions.appendingPathComponent(path)))
        #expect(throws: Never.self) { try target.run(bytes) }
    }
}
