import Testing
import WalletOrders
import WalletOrdersTestSupport

/// `OrderArchive.pathProblem` reads entry names byte by byte; each row is a name and the rule it
/// breaks (`nil`: a safe name).
@Suite struct EntryPathTests {
    static let cases: [(path: String, ruleID: String?)] = [
        ("order.json", nil),
        ("fr.lproj/order.strings", nil),
        ("zh-Hans.lproj/order.strings", nil),
        ("images/...png", nil),
        ("..hidden/a.png", nil),
        ("a/.../b", nil),
        ("é:/x.png", nil),  // not a drive letter: ':' is the third byte
        ("../escape.png", "zip.parent-reference"),
        ("a/../../b", "zip.parent-reference"),
        ("a/..", "zip.parent-reference"),
        ("..", "zip.parent-reference"),
        ("a\\..\\b", "zip.parent-reference"),
        ("/etc/cron.d/x", "zip.absolute-path"),
        ("\\server\\share", "zip.absolute-path"),
        ("C:\\x.png", "zip.absolute-path"),
        ("c:x.png", "zip.absolute-path"),
        ("images\\logo.png", "zip.backslash-path"),
    ]

    @Test("Entry names get the rule they break, and safe names none", arguments: cases.indices)
    func pathRules(index: Int) {
        let (path, ruleID) = Self.cases[index]
        #expect(OrderArchive.pathProblem(path)?.rule.id == ruleID, "\(path)")
    }
}
