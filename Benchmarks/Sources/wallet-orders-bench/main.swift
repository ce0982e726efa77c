// Times build+sign, verify and full validation of the shipped sample on one core, and OpenSSL's RSA-2048 sign and
// verify in the same run, and prints each figure next to its floor as a ratio.
//
//   make bench                       (builds in release, pins to CPU 0)
//   wallet-orders-bench [ITERATIONS] [SAMPLES_DIR]
import Foundation
import WalletOrders

let iterations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2_000 : 2_000
let samples = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "../Samples"

/// Milliseconds per call for `count` calls, after a warm-up; returns sorted samples.
func measure(_ count: Int, _ body: () throws -> Void) rethrows -> [Double] {
    for _ in 0..<max(count / 10, 10) { try body() }
    var times: [Double] = []
    times.reserveCapacity(count)
    for _ in 0..<count {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times.sorted()
}

func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

/// `openssl speed rsa2048` in this run: (sign ms, verify ms).
func opensslRSA2048() throws -> (sign: Double, verify: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "speed", "-seconds", "3", "rsa2048"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rsa 2048 bits") }) else {
        fatalError("unexpected `openssl speed` output:\n\(text)")
    }
    let fields = line.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: "s"))) }
    // "rsa 2048 bits 0.000556s 0.000028s 1799.7 36042.7": fields[0] is 2048.
    return (fields[1] * 1_000, fields[2] * 1_000)
}

let authority = try DevelopmentCertificateAuthority()
let source = try OrderSource(directory: URL(fileURLWithPath: "\(samples)/shipped-ecommerce"))
let order = try Order.decode(from: Data(source.orderJSON ?? []))
let certificate = try authority.issueOrderTypeCertificate(orderTypeIdentifier: order.orderTypeIdentifier, teamIdentifier: "BENCH00001")
let builder = OrderArchiveBuilder(identity: try certificate.signingIdentity())
let verifier = try OrderArchiveVerifier(additionalTrustAnchors: [Array(authority.rootCertificatePEM.utf8)])
let validator = try OrderValidator(verifier: verifier)
let signingTime = Date()
var archive = try builder.build(source, signingTime: signingTime)
precondition(verifier.verify(archiveBytes: archive.bytes, subject: "bench").diagnostics.isEmpty, "the sample must verify clean")

let build = try measure(iterations) { archive = try builder.build(source, signingTime: signingTime) }
let verify = measure(iterations) { _ = verifier.verify(archiveBytes: archive.bytes, subject: "bench") }
precondition(validator.validate(archiveBytes: archive.bytes, subject: "bench").errors.isEmpty, "the sample must validate")
let validate = measure(iterations) { _ = validator.validate(archiveBytes: archive.bytes, subject: "bench") }
let rsa = try opensslRSA2048()

func row(_ name: String, _ sorted: [Double], floor: Double, floorName: String) {
    let median = percentile(sorted, 0.5)
    print(
        name.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(format: "median %7.3f ms  p99 %7.3f ms   %6.2f × %@ (%.3f ms)", median, percentile(sorted, 0.99), median / floor, floorName, floor))
}
print("wallet-orders benchmark: shipped-ecommerce sample (\(archive.bytes.count) bytes), \(iterations) iterations, one core")
row("build+sign one archive", build, floor: rsa.sign, floorName: "openssl rsa2048 sign")
row("verify one archive (container)", verify, floor: rsa.verify, floorName: "openssl rsa2048 verify")
row("validate one archive (full)", validate, floor: rsa.verify, floorName: "openssl rsa2048 verify")
