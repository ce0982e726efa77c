import Foundation
import Testing
import WalletOrdersTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 12, across processes: three `wallet-orders serve` instances on loopback share one
/// PostgreSQL database; merchants post interleaved versions of the same orders to all three at
/// once; every answer must fit a serial order, the newest version wins, every registered device
/// gets a push after each change, and `kill -9` of an instance in the middle of sending pushes
/// loses none.
///
/// The order of events:
/// 1. one APNs stand-in, three servers (poll 0.2 s, lease 15 s, retries after 0.2–1 s);
/// 2. version 0 of five orders, then nine devices registered through the three servers (one of
///    them unregistered again);
/// 3. phase 1, APNs up: 6 client threads post versions 0–5 of every order, shuffled, with
///    duplicates and re-signed copies, each to a random server; then the outbox must drain;
/// 4. phase 2, APNs "slow" (the stand-in is stopped with SIGSTOP: connections open, nothing
///    answered): 4 threads post versions 2–8 of four of the orders; once a server is seen
///    holding claimed pushes and blocked sending them, it is killed with SIGKILL; then APNs goes
///    away (the stopped stand-in is killed, taking what the dead server had sent with it) and
///    comes back on the same port; the two other servers must deliver every push (the dead
///    one's claims after their lease);
/// 5. the killed server is started again; all three serve the newest version of every order;
///    every answer of the three phases is checked against a serial order, and the store's change
///    log against the answers.
///
/// Why this file passes 600 lines: the serial-order check (`serialOrderProblems`) and its own
/// tests (`SerialOrderRuleTests`) serve this one test only, and read best beside it.
@Suite(
    "Three `serve` instances on one PostgreSQL: concurrent merchants get serial answers, every device its push, through a kill -9",
    .enabled(if: PostgresTestCluster.serverBinaries != nil), .temporaryFolder)
struct ManyServersEndToEndTests {
    static let key = "merchant-key-0123456789abcdef"
    static let type = Repository.shippedOrderTypeIdentifier
    /// The sample's authenticationToken (every version keeps it).
    static let authenticationToken = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"
    static let orders = (0..<5).map { "many-\($0)" }
    static func updatedAt(_ version: Int) -> String { String(format: "2025-11-21T00:00:%02dZ", version) }

    /// Device `index`: its identifier, push token and the orders (indexes) it is registered for.
    /// Order 3 changes only in phase 1 and order 4 has no device; device 6 follows two orders;
    /// device 8 registers for order 2 and unregisters before any change.
    static let devices: [(id: String, token: String, orders: [Int])] = [
        [0], [0], [1], [1], [2], [2], [0, 1], [3], [2],
    ].enumerated().map { index, orders in
        ("many-device-\(index)", String(repeating: String(format: "%02x", 0xa0 + index), count: 32), orders)
    }
    static let unregisteredDevice = 8

    /// One upload: which version of which order, which signature of it, to which server.
    struct Post {
        var order: Int
        var version: Int
        /// 0 or 1: the same files signed one second apart (other bytes, the same content digest).
        var variant: Int
        var server: Int
    }

    /// What a client saw: the upload, when it was sent and when the whole answer had arrived
    /// (seconds since 1970, the client's wall clock), and the answer.
    struct Answer {
        var post: Post
        var phase: String
        var start: Double
        var end: Double
        var status: Int
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var result: String { json["result"] as? String ?? "HTTP \(status): \(String(decoding: body.prefix(300), as: UTF8.self))" }
        var storeChanged: Bool { json["storeChanged"] as? Bool ?? false }
        var sha256: String { json["sha256"] as? String ?? "" }
    }

    static func archive(_ post: Post) async throws -> URL {
        try await StoreFixtures.archive(updatedAt: updatedAt(post.version), orderIdentifier: orders[post.order], variant: post.variant)
    }

    // MARK: - The test

    @Test("Interleaved uploads to three servers fit a serial order, the newest wins everywhere, every device is pushed, kill -9 mid-push loses none")
    func interleavedUploadsPushesAndKill() async throws {
        let began = Date()
        let seed =
            ProcessInfo.processInfo.environment["WALLET_ORDERS_MANY_SERVERS_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        print("ManyServers: seed \(seed) (WALLET_ORDERS_MANY_SERVERS_SEED)")
        let cluster = try await PostgresStoreEndToEndTests.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let folder = try TemporaryFolder.ofTest
        func sql(_ query: String) async throws -> String { try await cluster.psql(query, database: database) }

        // 1. The stand-in (TEST-ONLY TLS identity and token key, made now in `folder`) and three servers.
        try await PushCrashEndToEndTests.credentials(in: folder)
        let (standIn, apnsPort) = try await PushCrashEndToEndTests.standIn(folder, port: 0, name: "apns")
        let standInPID = standIn.processIdentifier
        var secondStandIn: BackgroundProgram?
        defer {
            if standIn.isRunning { standIn.kill() }  // SIGKILL ends a stopped process too
            if let secondStandIn, secondStandIn.isRunning { secondStandIn.kill() }
        }
        let serve =
            (try await StoreFixtures.trustArguments()) + [
                "--apns", "127.0.0.1:\(apnsPort)", "--apns-ca", folder.file("apns-cert.pem").path,
                "--apns-token-key", folder.file("token.p8").path, "--apns-key-id", "KEY0000001", "--apns-team-id", "TEAM000001",
                "--push-poll", "0.2", "--push-lease", "15",
            ]
        let environment = [
            "WALLET_ORDERS_STORE": cluster.url(database: database).absoluteString, "WALLET_ORDERS_API_KEYS": "\(Self.key) *",
            "WALLET_ORDERS_PUSH_INITIAL_BACKOFF_SECONDS": "0.2", "WALLET_ORDERS_PUSH_MAXIMUM_BACKOFF_SECONDS": "1",
        ]
        var servers: [RunningServer] = []
        for index in 1...3 { servers.append(try await RunningServer(serve, environment: environment, folder: folder, name: "serve-\(index)")) }
        defer {
            for server in servers where server.child.isRunning { server.child.kill() }
        }
        let urls = servers.map(\.baseURL)

        // 2. Version 0 of every order, one after another, then the devices (the store knows the
        //    order's token only once it holds the order).
        var answers = try await Self.upload(
            [Self.orders.indices.map { Post(order: $0, version: 0, variant: 0, server: $0 % 3) }], to: urls, phase: "setup",
            folder: folder)
        for (index, device) in Self.devices.enumerated() {
            for order in device.orders {
                let registered = try await HTTPClient.request(
                    "POST", "\(urls[index % 3])/v1/devices/\(device.id)/registrations/\(Self.type)/\(Self.orders[order])",
                    headers: ["Authorization": "AppleOrder \(Self.authenticationToken)", "Content-Type": "application/json"],
                    body: Data(#"{"pushToken": "\#(device.token)"}"#.utf8))
                #expect(registered.status == 201, "\(device.id): \(String(decoding: registered.body, as: UTF8.self))")
            }
        }
        let gone = Self.devices[Self.unregisteredDevice]
        let unregistered = try await HTTPClient.request(
            "DELETE", "\(urls[1])/v1/devices/\(gone.id)/registrations/\(Self.type)/\(Self.orders[gone.orders[0]])",
            headers: ["Authorization": "AppleOrder \(Self.authenticationToken)"])
        #expect(unregistered.status == 200)
        #expect(Self.pushEvents(standIn).isEmpty, "version 0 was saved before any device registered: nothing to push")

        // 3. Phase 1, APNs up. Every version 0–5 of every order, 1–3 times each (either
        //    signature), shuffled and dealt to 6 threads, each upload to a random server.
        var phase1: [Post] = []
        for order in Self.orders.indices {
            phase1.append(Post(order: order, version: 0, variant: 1, server: 0))  // older than stored
            for version in 1...5 {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    phase1.append(Post(order: order, version: version, variant: Int.random(in: 0...1, using: &random), server: 0))
                }
            }
        }
        await answers += try Self.upload(Self.deal(phase1, threads: 6, using: &random), to: urls, phase: "phase 1", folder: folder)

        // Every device must get a push that APNs received no earlier than the upload that wrote
        // the last phase-1 version of each of its orders started (the write took effect inside
        // that upload's interval; a push received before it started cannot be for it). And the
        // outbox must drain: no push is left behind.
        let lastWrites = Self.lastWrites(answers)
        var outbox = ""
        var missing: [String] = []
        let drainDeadline = Date().addingTimeInterval(30 * TestTiming.scale)
        repeat {
            try await Task.sleep(for: .microseconds(100_000))
            outbox = try await sql("SELECT count(*) FROM push_outbox")
            missing = Self.devicesWithoutPush(Self.pushes(standIn), after: lastWrites.mapValues(\.start), orders: Set(Self.orders.indices))
        } while (outbox != "0" || !missing.isEmpty) && Date() < drainDeadline
        #expect(outbox == "0", "phase 1: pushes left in the outbox")
        #expect(missing.isEmpty, "phase 1: no push after the last change for \(missing) (seed \(seed))\n\(standIn.output)")
        // Quiet: no push is still being printed.
        var quiet = Self.pushEvents(standIn).count
        while Date() < drainDeadline {
            try await Task.sleep(for: .microseconds(300_000))
            let now = Self.pushEvents(standIn).count
            if now == quiet { break }
            quiet = now
        }
        let phase1Pushes = Self.pushes(standIn)
        // (Reported, not checked: how many devices also got one after the upload's answer.)
        let unprovenAfterAnswer = Self.devicesWithoutPush(phase1Pushes, after: lastWrites.mapValues(\.end), orders: Set(Self.orders.indices))

        // 4. Phase 2, APNs stopped (SIGSTOP: connections are accepted by the kernel, requests
        //    sit unread, nothing is answered): versions 6–8 of orders 0, 1, 2 and 4 (1–2 times
        //    each) and one older version of each, dealt to 4 threads.
        #expect(kill(standInPID, SIGSTOP) == 0)
        var phase2: [Post] = []
        for order in [0, 1, 2, 4] {
            phase2.append(Post(order: order, version: Int.random(in: 2...5, using: &random), variant: 0, server: 0))
            for version in 6...8 {
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    phase2.append(Post(order: order, version: version, variant: Int.random(in: 0...1, using: &random), server: 0))
                }
            }
        }
        await answers += try Self.upload(Self.deal(phase2, threads: 4, using: &random), to: urls, phase: "phase 2", folder: folder)
        let phase2Acknowledged = Date().timeIntervalSince1970

        // A server is mid-push when it holds claimed pushes and has sent bytes to the stopped
        // stand-in that it hasn't read yet (`ss`: the stand-in's receive queue, by peer port).
        var victim: Int?
        var claims: [String] = []
        let claimDeadline = Date().addingTimeInterval(15 * TestTiming.scale)
        repeat {
            try await Task.sleep(for: .microseconds(100_000))
            claims = try await Self.claimedPushes(sql)
            let sending = try await Self.serversSendingTo(port: apnsPort)
            victim = servers.indices.filter { sending[servers[$0].child.processIdentifier] != nil }
                .max { sending[servers[$0].child.processIdentifier]! < sending[servers[$1].child.processIdentifier]! }
        } while (victim == nil || claims.isEmpty) && Date() < claimDeadline
        let killed = try #require(victim, "no server was seen sending to the stopped stand-in (claimed pushes: \(claims))")
        // The lease (15 s) outlasts the look-up and the check below even on a busy machine: with a
        // 4 s lease, a loaded CI run saw the victim's claims run out (and be claimed again by
        // another server) before they were looked at, so the kill seemed not to land mid-push.
        claims = try await Self.claimedPushes(sql)
        servers[killed].child.kill()
        let atKill = try await sql("SELECT count(*) || ' rows, ' || count(leased_until) || ' claimed' FROM push_outbox")
        // APNs goes away for good, with whatever the dead server had written to it unread; the
        // other servers' sends fail and are put back. Claims that still hold the lease they had
        // at the kill, once the others' are back, are the dead server's: only their lease's
        // expiry lets another server send them.
        standIn.kill()
        var orphaned: [String] = []
        for _ in 0..<10 {
            try await Task.sleep(for: .microseconds(100_000))
            orphaned = try await Self.claimedPushes(sql).filter(claims.contains)
        }
        #expect(!orphaned.isEmpty, "serve-\(killed + 1) was sending, yet no claim outlived it: the kill didn't land mid-push")
        let (resumedStandIn, _) = try await PushCrashEndToEndTests.standIn(folder, port: apnsPort, name: "apns-again")
        secondStandIn = resumedStandIn

        // Every device of orders 0, 1 and 2 must get a push from the new stand-in, which started
        // after every phase-2 answer (a device that fetches then sees every change); the outbox
        // must drain, the dead server's claims included.
        let phase2Orders: Set<Int> = [0, 1, 2, 4]
        let resumed = Date().timeIntervalSince1970
        let deadline = Date().addingTimeInterval(60 * TestTiming.scale)
        repeat {
            try await Task.sleep(for: .microseconds(100_000))
            outbox = try await sql("SELECT count(*) FROM push_outbox")
            missing = Self.devicesWithoutPush(Self.pushes(resumedStandIn), after: [:], orders: phase2Orders)
        } while (outbox != "0" || !missing.isEmpty) && Date() < deadline
        let deliveredIn = Date().timeIntervalSince1970 - resumed
        #expect(missing.isEmpty, "phase 2: after the kill of serve-\(killed + 1), no push for \(missing) (seed \(seed))\n\(resumedStandIn.output)")
        let left = try await sql("SELECT * FROM push_outbox")
        #expect(outbox == "0", "phase 2: pushes left in the outbox: \(left)")
        let phase2Pushes = Self.pushes(resumedStandIn)
        #expect(phase2Pushes.allSatisfy { $0.receivedAt > phase2Acknowledged })

        // No device got a push for an order it isn't registered for: every push names the order
        // type and a registered device's token; device 7 (order 3 only) gets none in phase 2, and
        // the unregistered device none at all.
        let everything = Self.pushes(standIn) + phase2Pushes
        let registeredTokens = Set(Self.devices.enumerated().filter { $0.offset != Self.unregisteredDevice }.map(\.element.token))
        #expect(everything.allSatisfy { $0.topic == Self.type && registeredTokens.contains($0.token) }, "\(standIn.output)")
        #expect(!everything.contains { $0.token == gone.token }, "the unregistered device was pushed")
        #expect(!phase2Pushes.contains { $0.token == Self.devices[7].token }, "device 7 follows order 3, which phase 2 didn't change")
        let refused = (Self.pushEvents(standIn) + Self.pushEvents(resumedStandIn)).filter { $0.status != 200 }
        #expect(refused.isEmpty, "the stand-in refused a push: \(standIn.output)\(resumedStandIn.output)")
        // Duplicates: a device may rightly get two pushes in phase 2 (one put back after the
        // first stand-in went away, and one queued by a later change while the first was
        // claimed: each names no order), and more if a claim outlives its lease. Counted, not
        // failed.
        let perToken = Dictionary(grouping: phase2Pushes, by: \.token).mapValues(\.count)

        // 5. The killed server again; then what every server serves.
        servers[killed] = try await RunningServer(serve, environment: environment, folder: folder, name: "serve-\(killed + 1)-again")
        let fetches = try await Self.fetchAll(servers.map(\.baseURL), folder: folder)

        // Serial order, per order (the rule is at `serialOrderProblems`).
        for order in Self.orders.indices {
            let mine = answers.filter { $0.post.order == order }
            for answer in mine where answer.status != 200 {
                Issue.record("\(Self.orders[order]) v\(answer.post.version) to serve-\(answer.post.server + 1): \(answer.result)")
            }
            let check = Self.serialOrderProblems(
                mine.map { Observed(version: $0.post.version, start: $0.start, end: $0.end, result: $0.result, storeChanged: $0.storeChanged) })
            #expect(
                check.problems.isEmpty,
                "\(Self.orders[order]) (seed \(seed)):\n\(check.problems.joined(separator: "\n"))\n\(Self.describe(mine))")
            // The newest version ever posted was written, and it is what every server serves.
            let newest = mine.map(\.post.version).max()!
            let writer = try #require(check.writers[newest].map { mine[$0] }, "\(Self.orders[order]) v\(newest) never written")
            let expected = try await Data(contentsOf: try Self.archive(writer.post))
            for (server, fetched) in fetches[order].enumerated() {
                #expect(fetched.status == 200 && fetched.body == expected, "\(Self.orders[order]) from serve-\(server + 1): \(fetched.status)")
            }
        }

        // The change log (read with psql): per order one `inserted` then one `updated` per later
        // write, as many as answers said they wrote; its order agrees with real time across all
        // orders (a write acknowledged before another started has the smaller sequence); and
        // each row holds the newest version, the writer's bytes and its last change's sequence.
        try await Self.checkChangeLog(answers, sql: sql)

        for (index, server) in servers.enumerated() {
            #expect(try await server.stop() == 0, "serve-\(index + 1): \(server.child.errorOutput)")
        }
        let counts = Dictionary(grouping: answers, by: { "\($0.result)\($0.result == "added" && !$0.storeChanged ? " (unchanged)" : "")" })
            .map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
        print(
            """
            ManyServers (seed \(seed)): \(answers.count) uploads (\(counts)); \
            phase 1: \(phase1Pushes.count) pushes, \(Self.devices.count - 1 - unprovenAfterAnswer.count) of 8 devices pushed after \
            their orders' last write was acknowledged; phase 2: serve-\(killed + 1) killed mid-push (outbox then: \(atKill); \(orphaned.count) \
            claims left by it), \(phase2Pushes.count) pushes delivered within \(String(format: "%.1f", deliveredIn)) s of APNs' \
            return, per device \(perToken.sorted { $0.key < $1.key }.map(\.value)); \
            \(String(format: "%.1f", Date().timeIntervalSince(began))) s in all
            """)
    }

    // MARK: - The serial-order rule

    /// One answer as the rule sees it.
    struct Observed {
        var version: Int
        var start: Double
        var end: Double
        var result: String
        var storeChanged: Bool
    }

    /// Whether `answers` (all uploads of one order, any order of listing) fit a serial order in
    /// which each upload takes effect at one instant between its start and its end, and the store
    /// follows its decision table (README, spec §4.3): a version newer than the stored one is
    /// written (`added`, storeChanged true), the stored version again is `added` with
    /// storeChanged false, an older one is `newerExisting`.
    ///
    /// The rule, exactly: the stored version only grows, so
    /// - each version is written by at most one upload; call the written versions w1 < … < wm
    ///   and their writes' instants p1 < … < pm (the writes happen in version order);
    /// - a write of wj: start ≤ pj ≤ end of its upload;
    /// - an `added` that changed nothing, for version v: v is some wj and the upload saw wj
    ///   stored, so pj ≤ its end and (when j < m) its start ≤ pj+1;
    /// - a `newerExisting` for v: some written version is newer; the first such, wj, was written
    ///   before the upload ended: pj ≤ its end;
    /// - anything else (409, 422, 5xx, no answer) fails.
    /// These are bounds on each pj plus p1 < … < pm, so the earliest choice, pj = max(its lower
    /// bounds, pj-1), succeeds exactly when any does: the check is exact, not a heuristic.
    ///
    /// - Returns: the problems (none when the answers fit) and, per written version, the index
    ///   of the upload that wrote it.
    static func serialOrderProblems(_ answers: [Observed]) -> (problems: [String], writers: [Int: Int]) {
        var problems: [String] = []
        var writers: [Int: Int] = [:]
        for (index, answer) in answers.enumerated() where answer.result == "added" && answer.storeChanged {
            if let other = writers[answer.version] {
                problems.append("v\(answer.version) was written twice (answers #\(other) and #\(index))")
            } else {
                writers[answer.version] = index
            }
        }
        let written = writers.keys.sorted()
        // Bounds on each write's instant, with the answer that set each (for the message).
        var lower = written.map { (answers[writers[$0]!].start, writers[$0]!) }
        var upper = written.map { (answers[writers[$0]!].end, writers[$0]!) }
        for (index, answer) in answers.enumerated() {
            switch answer.result {
            case "added" where answer.storeChanged:
                continue
            case "added":
                guard let j = written.firstIndex(of: answer.version) else {
                    problems.append("#\(index): v\(answer.version) answered added with nothing written, but no upload wrote v\(answer.version)")
                    continue
                }
                if answer.end < upper[j].0 { upper[j] = (answer.end, index) }
                if j + 1 < written.count && answer.start > lower[j + 1].0 { lower[j + 1] = (answer.start, index) }
            case "newerExisting":
                guard let j = written.firstIndex(where: { $0 > answer.version }) else {
                    problems.append("#\(index): v\(answer.version) answered newerExisting, but no newer version was ever written")
                    continue
                }
                if answer.end < upper[j].0 { upper[j] = (answer.end, index) }
            default:
                problems.append("#\(index): v\(answer.version) answered \(answer.result)")
            }
        }
        var previous = -Double.infinity
        for j in written.indices {
            let instant = max(lower[j].0, previous)
            if instant > upper[j].0 {
                problems.append(
                    "no serial order: the write of v\(written[j]) (#\(writers[written[j]]!)) must take effect at or after \(instant) "
                        + "(set by #\(lower[j].1) or the write before) and by \(upper[j].0) (set by #\(upper[j].1))")
                break
            }
            previous = instant
        }
        return (problems, writers)
    }

    // MARK: - Checks

    /// Per order, the upload that wrote its newest version (the last write of that order).
    static func lastWrites(_ answers: [Answer]) -> [Int: (start: Double, end: Double)] {
        var last: [Int: Answer] = [:]
        for answer in answers where answer.result == "added" && answer.storeChanged {
            if let known = last[answer.post.order], known.post.version > answer.post.version { continue }
            last[answer.post.order] = answer
        }
        return last.mapValues { ($0.start, $0.end) }
    }

    /// The registered devices following one of `orders` with no push received at or after
    /// `after[order]` (any push when `after` has no entry) for one of them.
    static func devicesWithoutPush(_ pushes: [Push], after: [Int: Double], orders: Set<Int>) -> [String] {
        Self.devices.enumerated().compactMap { index, device in
            guard index != unregisteredDevice else { return nil }
            let mine = pushes.filter { $0.token == device.token }
            for order in device.orders where orders.contains(order) {
                let since = after[order] ?? -Double.infinity
                if !mine.contains(where: { $0.receivedAt >= since }) { return "\(device.id) (\(Self.orders[order]))" }
            }
            return nil
        }
    }

    static func checkChangeLog(_ answers: [Answer], sql: (String) async throws -> String) async throws {
        let log = try await sql("SELECT sequence, order_identifier, kind FROM changes ORDER BY sequence")
            .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        var sequenceOf: [(answer: Answer, sequence: Int)] = []
        for (order, identifier) in Self.orders.enumerated() {
            let entries = log.filter { $0.count == 3 && $0[1] == identifier }
            let writes = answers.filter { $0.post.order == order && $0.result == "added" && $0.storeChanged }
                .sorted { $0.post.version < $1.post.version }
            #expect(entries.count == writes.count, "\(identifier): \(entries.count) changes logged, \(writes.count) writes answered")
            let kinds: [String] = ["inserted"] + Array(repeating: "updated", count: max(0, entries.count - 1))
            #expect(entries.map { $0[2] } == kinds, "\(identifier)")
            // Serial order puts an order's writes in version order, so its k-th change is the
            // k-th written version.
            for (write, entry) in zip(writes, entries) { sequenceOf.append((write, Int(entry[0]) ?? -1)) }
            let row = try await sql(
                "SELECT updated_at_text || '|' || sha256 || '|' || change_sequence FROM orders WHERE order_identifier = '\(identifier)'")
            if let newest = writes.last {
                #expect(
                    row == "\(Self.updatedAt(newest.post.version))|\(newest.sha256)|\(entries.last?[0] ?? "")",
                    "\(identifier): the stored row")
            }
        }
        for a in sequenceOf {
            for b in sequenceOf where a.answer.end < b.answer.start && a.sequence > b.sequence {
                let first = "\(Self.orders[a.answer.post.order]) v\(a.answer.post.version)"
                let second = "\(Self.orders[b.answer.post.order]) v\(b.answer.post.version)"
                Issue.record("\(first) was acknowledged before \(second) was sent, but logged after it (\(a.sequence) > \(b.sequence))")
            }
        }
    }

    static func describe(_ answers: [Answer]) -> String {
        let origin = answers.map(\.start).min() ?? 0
        return answers.sorted { $0.start < $1.start }.map {
            let interval = String(format: "[%.4f, %.4f]", $0.start - origin, $0.end - origin)
            let effect = $0.result == "added" ? ($0.storeChanged ? " (wrote)" : " (unchanged)") : ""
            return "  \($0.phase) v\($0.post.version)/\($0.post.variant) serve-\($0.post.server + 1) \(interval) \($0.result)\(effect)"
        }.joined(separator: "\n")
    }

    // MARK: - Clients

    /// Shuffles `posts`, gives each a random server and deals them to `threads` lists.
    static func deal(_ posts: [Post], threads: Int, using random: inout SplitMix64) -> [[Post]] {
        var dealt = [[Post]](repeating: [], count: threads)
        for (index, var post) in posts.shuffled(using: &random).enumerated() {
            post.server = Int.random(in: 0...2, using: &random)
            dealt[index % threads].append(post)
        }
        return dealt
    }

    /// Runs each list of uploads on its own thread of one Python process (urllib, a client we
    /// didn't write), all threads released at once; each upload is timed around the whole
    /// request and answer.
    static func upload(_ threads: [[Post]], to servers: [String], phase: String, folder: TemporaryFolder) async throws -> [Answer] {
        let jobs = try await threads.asyncMap { posts in
            try await posts.asyncMap { post -> [String: Any] in
                [
                    "method": "POST", "url": "\(servers[post.server])/merchant/v1/orders", "file": try await archive(post).path,
                    "headers": ["Authorization": "Bearer \(key)", "Content-Type": "application/vnd.apple.finance.order"],
                ]
            }
        }
        let results = try await run(jobs, folder: folder)
        return zip(threads, results).flatMap { posts, results in
            zip(posts, results).map { post, result in
                Answer(post: post, phase: phase, start: result.start, end: result.end, status: result.status, body: result.body)
            }
        }
    }

    /// Every order from every server, as the merchant API serves it: [order][server].
    static func fetchAll(_ servers: [String], folder: TemporaryFolder) async throws -> [[(status: Int, body: Data)]] {
        let jobs = orders.map { order in
            servers.map { server -> [String: Any] in
                ["method": "GET", "url": "\(server)/merchant/v1/orders/\(type)/\(order)", "headers": ["Authorization": "Bearer \(key)"]]
            }
        }
        return try await run(jobs, folder: folder).map { $0.map { ($0.status, $0.body) } }
    }

    static func run(_ threads: [[[String: Any]]], folder: TemporaryFolder) async throws -> [[(start: Double, end: Double, status: Int, body: Data)]] {
        let script = """
            import base64, json, sys, threading, time, urllib.error, urllib.request
            spec = json.load(open(sys.argv[1]))
            data = {}
            for jobs in spec:
                for job in jobs:
                    if "file" in job and job["file"] not in data:
                        with open(job["file"], "rb") as f:
                            data[job["file"]] = f.read()
            results = [[None] * len(jobs) for jobs in spec]
            barrier = threading.Barrier(len(spec))
            def run(t, jobs):
                barrier.wait()
                for j, job in enumerate(jobs):
                    request = urllib.request.Request(job["url"], data=data.get(job.get("file")), method=job["method"], headers=job["headers"])
                    start = time.time()
                    try:
                        with urllib.request.urlopen(request, timeout=30) as response:
                            status, body = response.status, response.read()
                    except urllib.error.HTTPError as error:
                        status, body = error.code, error.read()
                    except Exception as error:
                        status, body = 0, repr(error).encode()
                    results[t][j] = {"start": start, "end": time.time(), "status": status, "body": base64.b64encode(body).decode()}
            threads = [threading.Thread(target=run, args=(t, jobs)) for t, jobs in enumerate(spec)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            print(json.dumps(results))
            """
        let spec = try folder.write(try JSONSerialization.data(withJSONObject: threads), to: "requests-\(UUID().uuidString).json")
        let result = try await ExternalProgram.python(script, [spec.path], timeout: 60 * TestTiming.scale)
        guard result.status == 0, let lists = try JSONSerialization.jsonObject(with: result.standardOutput) as? [[[String: Any]]] else {
            throw FixtureError(description: "the HTTP client failed: \(result)")
        }
        return lists.map { list in
            list.map {
                (
                    $0["start"] as? Double ?? 0, $0["end"] as? Double ?? 0, $0["status"] as? Int ?? 0,
                    Data(base64Encoded: $0["body"] as? String ?? "") ?? Data()
                )
            }
        }
    }

    // MARK: - The stand-in and the servers' sockets

    /// One request the stand-in printed: its place among them, token, topic, status and time.
    struct Push {
        var index: Int
        var token: String
        var topic: String?
        var status: Int
        var receivedAt: Double
    }

    /// Every request the stand-in printed, in order.
    static func pushEvents(_ standIn: BackgroundProgram) -> [Push] {
        standIn.output.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "push" }
            .enumerated().map { index, line in
                Push(
                    index: index, token: line["deviceToken"] as? String ?? "", topic: line["topic"] as? String,
                    status: line["status"] as? Int ?? 0, receivedAt: line["receivedAtSeconds"] as? Double ?? 0)
            }
    }

    /// The outbox's claimed rows (lease not run out) as "id|leased_until".
    static func claimedPushes(_ sql: (String) async throws -> String) async throws -> [String] {
        try await sql("SELECT id || '|' || leased_until FROM push_outbox WHERE leased_until > extract(epoch FROM clock_timestamp())")
            .split(separator: "\n").map(String.init)
    }

    /// The pushes the stand-in accepted.
    static func pushes(_ standIn: BackgroundProgram) -> [Push] { pushEvents(standIn).filter { $0.status == 200 } }

    /// Per process, the bytes it sent to the stand-in on `port` that the stand-in hasn't read
    /// (`ss -tnp`: the receive queue of the stand-in's end, matched to the client's end by port).
    static func serversSendingTo(port: Int) async throws -> [Int32: Int] {
        let result = try await ExternalProgram.run(tool: "ss", ["-tnpH"])
        guard result.status == 0 else { throw FixtureError(description: "ss failed: \(result)") }
        func portOf(_ address: Substring) -> Int? { address.split(separator: ":").last.flatMap { Int($0) } }
        var unread: [Int: Int] = [:]  // client port → bytes waiting at the stand-in
        var owner: [Int: Int32] = [:]  // client port → its process
        for line in result.output.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 5, fields[0] == "ESTAB", let queued = Int(fields[1]),
                let local = portOf(fields[3]), let peer = portOf(fields[4])
            else { continue }
            if local == port && queued > 0 { unread[peer] = queued }
            if peer == port, let range = line.range(of: #"pid=\d+"#, options: .regularExpression),
                let pid = Int32(line[range].dropFirst(4))
            {
                owner[local] = pid
            }
        }
        var sending: [Int32: Int] = [:]
        for (client, bytes) in unread { if let pid = owner[client] { sending[pid, default: 0] += bytes } }
        return sending
    }
}

/// SplitMix64: a seeded generator, so a failing run's uploads can be made again in the same
/// threads (`WALLET_ORDERS_MANY_SERVERS_SEED`, printed by every run).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The serial-order rule itself, on hand-made histories: it must accept serial ones and catch
/// each kind of answer no serial order explains (so a pass of the test above means something).
@Suite("The serial-order rule of the many-servers test", .temporaryFolder)
struct SerialOrderRuleTests {
    typealias Observed = ManyServersEndToEndTests.Observed
    static func added(_ version: Int, _ start: Double, _ end: Double, wrote: Bool = true) -> Observed {
        Observed(version: version, start: start, end: end, result: "added", storeChanged: wrote)
    }
    static func newer(_ version: Int, _ start: Double, _ end: Double) -> Observed {
        Observed(version: version, start: start, end: end, result: "newerExisting", storeChanged: false)
    }

    @Test("Serial histories pass, overlapping ones in either order, and the writers are found")
    func accepts() {
        let overlapping = [Self.added(1, 0, 10), Self.added(2, 1, 3), Self.newer(1, 4, 5), Self.added(2, 6, 7, wrote: false), Self.newer(0, 2, 8)]
        let check = ManyServersEndToEndTests.serialOrderProblems(overlapping)
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.writers == [1: 0, 2: 1])
        // v2 answered newerExisting while v3's write overlaps it: v3 may have gone first.
        #expect(ManyServersEndToEndTests.serialOrderProblems([Self.added(3, 0, 5), Self.newer(2, 1, 2)]).problems.isEmpty)
    }

    @Test(
        "Answers no serial order explains are caught",
        arguments: [
            // A version written twice.
            ("twice", [Self.added(1, 0, 1), Self.added(1, 2, 3)]),
            // newerExisting before any newer version's upload had started.
            ("newer before", [Self.newer(1, 0, 1), Self.added(2, 2, 3)]),
            // newerExisting with no newer version at all.
            ("newer never", [Self.added(2, 0, 1), Self.newer(2, 2, 3)]),
            // Writes out of version order: v2 acknowledged before v1's upload started.
            ("writes reversed", [Self.added(2, 0, 1), Self.added(1, 2, 3)]),
            // A stale read: v1 seen as stored after v2 had been acknowledged.
            ("stale", [Self.added(1, 0, 1), Self.added(2, 2, 3), Self.added(1, 4, 5, wrote: false)]),
            // Seen as stored before it was written.
            ("early", [Self.added(1, 0, 1, wrote: false), Self.added(1, 2, 3)]),
            // Seen as stored but never written.
            ("phantom", [Self.added(1, 0, 1, wrote: false)]),
            // An error answer.
            ("error", [Observed(version: 1, start: 0, end: 1, result: "HTTP 500", storeChanged: false)]),
        ])
    func rejects(name: String, history: [Observed]) {
        #expect(!ManyServersEndToEndTests.serialOrderProblems(history).problems.isEmpty, "\(name)")
    }
}
