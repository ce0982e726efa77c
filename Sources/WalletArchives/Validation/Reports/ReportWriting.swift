import Foundation

// The parts of report writing that don't depend on what was checked: ANSI styling, stable JSON
// and JUnit XML. ``ReportRenderer`` writes validation reports with them, and the service
// checker (WalletOrdersServiceCheck) its check reports, so the two formats stay one format.

/// Text styled with an ANSI SGR code (`1` bold, `31` red, `32` green, `33` yellow, `36` cyan), or
/// left as it is when `colors` is off.
package func ansiStyled(_ text: String, _ code: String, colors: Bool) -> String {
    colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
}

/// Stable JSON: pretty-printed, sorted keys, slashes unescaped, ending in a newline.
package func stableJSON(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) + "\n" } ?? "{}\n"
}

/// A JUnit XML document of one test suite: what CI systems read as test results.
package struct JUnitDocument {
    /// One test case: passed, failed, or skipped.
    package struct TestCase {
        /// How a test case ended.
        package enum Outcome {
            /// Passed; `output` (if not empty) goes to `<system-out>`.
            case passed(output: String)
            /// Failed: the one-line `message`, the failure `type`, and the full text.
            case failed(message: String, type: String, text: String)
            /// Not run, and why.
            case skipped(message: String)
        }

        package var classname: String
        package var name: String
        package var outcome: Outcome

        package init(classname: String, name: String, outcome: Outcome) {
            self.classname = classname
            self.name = name
            self.outcome = outcome
        }
    }

    /// The suite's name (`wallet-orders validate`).
    package var suiteName: String
    package var testCases: [TestCase]

    package init(suiteName: String, testCases: [TestCase]) {
        self.suiteName = suiteName
        self.testCases = testCases
    }

    /// XML text: `&<>"` escaped, control characters other than tab and newline dropped.
    package static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The document, ending in a newline.
    package var xml: String {
        let escape = Self.escape
        var failed = 0
        var skipped = 0
        for testCase in testCases {
            switch testCase.outcome {
            case .failed: failed += 1
            case .skipped: skipped += 1
            case .passed: break
            }
        }
        let name = escape(suiteName)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"\(name)\" tests=\"\(testCases.count)\" failures=\"\(failed)\" errors=\"0\">\n"
        out += "  <testsuite name=\"\(name)\" tests=\"\(testCases.count)\" failures=\"\(failed)\" errors=\"0\" skipped=\"\(skipped)\">\n"
        for testCase in testCases {
            out += "    <testcase classname=\"\(escape(testCase.classname))\" name=\"\(escape(testCase.name))\""
            switch testCase.outcome {
            case .failed(let message, let type, let text):
                out += ">\n      <failure message=\"\(escape(message))\" type=\"\(escape(type))\">"
                out += escape(text) + "</failure>\n    </testcase>\n"
            case .skipped(let message):
                out += ">\n      <skipped message=\"\(escape(message))\"/>\n    </testcase>\n"
            case .passed(let output) where !output.isEmpty:
                out += ">\n      <system-out>\(escape(output))</system-out>\n    </testcase>\n"
            case .passed:
                out += "/>\n"
            }
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }
}
