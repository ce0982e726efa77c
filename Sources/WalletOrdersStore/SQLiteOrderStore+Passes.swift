import Foundation
import GRDB
import WalletOrders
public import WalletPasses

// Passes beside the orders, in the same file: the `passes` table holds each pass's newest
// version, `passVersions` the versions before it, and the `changes` log (with its one sequence)
// records both kinds.
extension SQLiteOrderStore: PassStoring {
    public func save(verifiedPass: VerifiedPassArchive) async throws -> PassSaveReceipt {
        try await save(verifiedPasses: [verifiedPass])[0]
    }

    public func save(verifiedPasses: [VerifiedPassArchive]) async throws -> [PassSaveReceipt] {
        let now = Int64(Date().timeIntervalSince1970.rounded(.down))
        return try await perform("save to") { database in
            try await database.writeWithoutTransaction { db in
                var receipts: [PassSaveReceipt] = []
                try db.inTransaction(.immediate) {
                    receipts.removeAll()
                    for incoming in verifiedPasses {
                        let stored = try Self.storedPassState(db, incoming.identifier)
                        let decision = PassStoreDecision.save(stored: stored, incoming: incoming)
                        if case .write(let version, _) = decision {
                            try Self.writePass(
                                db, incoming, version: version, modifiedAt: PassStoreDecision.modifiedAt(now: now, stored: stored),
                                replacing: stored != nil)
                        }
                        receipts.append(decision.receipt(for: incoming, stored: stored))
                    }
                    return .commit
                }
                return receipts
            }
        }
    }

    public func passArchive(for identifier: PassIdentifier, version: Int?) async throws -> [UInt8]? {
        try await perform("read") { database in
            try await database.read { db in
                let key: StatementArguments = [identifier.passTypeIdentifier, identifier.serialNumber]
                let current = "SELECT archive FROM passes WHERE passTypeIdentifier = ? AND serialNumber = ?"
                let data: Data?
                if let version {
                    data = try Data.fetchOne(
                        db,
                        sql: """
                            \(current) AND version = ?3
                            UNION ALL SELECT archive FROM passVersions WHERE passTypeIdentifier = ?1 AND serialNumber = ?2 AND version = ?3
                            """, arguments: key + [version])
                } else {
                    data = try Data.fetchOne(db, sql: current, arguments: key)
                }
                return data.map { [UInt8]($0) }
            }
        }
    }

    public func passSummary(for identifier: PassIdentifier) async throws -> StoredPassSummary? {
        try await perform("read") { database in
            try await database.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT \(Self.passColumns) FROM passes WHERE passTypeIdentifier = ? AND serialNumber = ?",
                    arguments: [identifier.passTypeIdentifier, identifier.serialNumber]
                ).map(Self.passSummary)
            }
        }
    }

    public func passVersions(for identifier: PassIdentifier) async throws -> [StoredPassVersion] {
        try await perform("read") { database in
            try await database.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT version, sha256, length(archive), voided, modifiedAt FROM passVersions
                            WHERE passTypeIdentifier = ?1 AND serialNumber = ?2
                        UNION ALL SELECT version, sha256, length(archive), voided, modifiedAt FROM passes
                            WHERE passTypeIdentifier = ?1 AND serialNumber = ?2
                        ORDER BY version
                        """, arguments: [identifier.passTypeIdentifier, identifier.serialNumber]
                ).map { row in
                    StoredPassVersion(version: row[0], sha256: row[1], archiveSize: row[2], voided: row[3], modifiedAt: row[4])
                }
            }
        }
    }

    public func listPasses(_ query: PassQuery) async throws -> PassListPage {
        try await perform("read") { database in
            try await database.read { db in
                var conditions: [String] = []
                var arguments = StatementArguments()
                if let type = query.passTypeIdentifier {
                    conditions.append("passTypeIdentifier = ?")
                    arguments += [type]
                }
                if let types = query.passTypeIdentifiers {
                    conditions.append("passTypeIdentifier IN (\(Array(repeating: "?", count: types.count).joined(separator: ", ")))")
                    arguments += StatementArguments(types.sorted())
                }
                if let voided = query.voided {
                    conditions.append("voided = ?")
                    arguments += [voided]
                }
                if let after = query.after {
                    conditions.append("(passTypeIdentifier, serialNumber) > (?, ?)")
                    arguments += [after.passTypeIdentifier, after.serialNumber]
                }
                let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
                arguments += [query.limit + 1]
                let rows = try Row.fetchAll(
                    db, sql: "SELECT \(Self.passColumns) FROM passes \(filter) ORDER BY passTypeIdentifier, serialNumber LIMIT ?",
                    arguments: arguments)
                let passes = try rows.prefix(query.limit).map(Self.passSummary)
                return PassListPage(passes: passes, nextCursor: rows.count > query.limit ? passes.last?.identifier : nil)
            }
        }
    }

    public func deletePass(_ identifier: PassIdentifier) async throws -> Bool {
        try await perform("delete from") { database in
            try await database.write { db in
                let key: StatementArguments = [identifier.passTypeIdentifier, identifier.serialNumber]
                try db.execute(sql: "DELETE FROM passes WHERE passTypeIdentifier = ? AND serialNumber = ?", arguments: key)
                guard db.changesCount > 0 else { return false }
                try db.execute(sql: "DELETE FROM passVersions WHERE passTypeIdentifier = ? AND serialNumber = ?", arguments: key)
                // A device registered for it must not stay registered for ever, and reach the
                // next pass stored under the same identifier.
                try db.execute(sql: "DELETE FROM passRegistrations WHERE passTypeIdentifier = ? AND serialNumber = ?", arguments: key)
                try Self.logPassChange(db, identifier, .deleted)
                return true
            }
        }
    }

    public func passHistory(since token: OrderHistoryToken?, limit: Int?) async throws -> PassChanges {
        try await changeLog(
            of: .pass, since: token, limit: limit,
            present: "SELECT passTypeIdentifier, serialNumber FROM passes ORDER BY passTypeIdentifier, serialNumber"
        ) { PassIdentifier(passTypeIdentifier: $0, serialNumber: $1) }
    }

    /// The number of stored passes.
    public func passCount() async throws -> Int {
        try await perform("read") { database in
            try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM passes") ?? 0 }
        }
    }

    // MARK: - Rows

    private static let passColumns = """
        passTypeIdentifier, serialNumber, version, sha256, length(archive), voided, modifiedAt, authenticationToken,
        webServiceURL, changeSequence
        """

    private static func passSummary(_ row: Row) throws -> StoredPassSummary {
        StoredPassSummary(
            identifier: PassIdentifier(passTypeIdentifier: row[0], serialNumber: row[1]),
            current: StoredPassVersion(version: row[2], sha256: row[3], archiveSize: row[4], voided: row[5], modifiedAt: row[6]),
            authenticationToken: row[7], webServiceURL: row[8], changeSequence: row[9])
    }

    private static func storedPassState(_ db: Database, _ identifier: PassIdentifier) throws -> StoredPassState? {
        let statement = try db.cachedStatement(
            sql: "SELECT version, sha256, contentDigest, voided, modifiedAt FROM passes WHERE passTypeIdentifier = ? AND serialNumber = ?")
        return try Row.fetchOne(statement, arguments: [identifier.passTypeIdentifier, identifier.serialNumber]).map { row in
            StoredPassState(version: row[0], sha256: row[1], contentDigest: row[2], voided: row[3], modifiedAt: row[4])
        }
    }

    private static func writePass(
        _ db: Database, _ pass: VerifiedPassArchive, version: Int, modifiedAt: Int64, replacing: Bool
    ) throws {
        let key: StatementArguments = [pass.identifier.passTypeIdentifier, pass.identifier.serialNumber]
        if replacing {
            // The version being replaced joins the pass's earlier versions.
            try db.execute(
                sql: """
                    INSERT INTO passVersions (passTypeIdentifier, serialNumber, version, archive, sha256, voided, modifiedAt)
                    SELECT passTypeIdentifier, serialNumber, version, archive, sha256, voided, modifiedAt FROM passes
                    WHERE passTypeIdentifier = ? AND serialNumber = ?
                    """, arguments: key)
        }
        let sequence = try logPassChange(db, pass.identifier, replacing ? .updated : .inserted)
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO passes
                    (passTypeIdentifier, serialNumber, version, archive, sha256, contentDigest, authenticationToken,
                     previousAuthenticationToken, webServiceURL, voided, modifiedAt, savedAt, changeSequence)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,
                    (SELECT CASE WHEN authenticationToken IS NOT ?7 THEN authenticationToken ELSE previousAuthenticationToken END
                     FROM passes WHERE passTypeIdentifier = ?1 AND serialNumber = ?2),
                    ?8, ?9, ?10, ?11, ?12)
                """)
        try statement.execute(arguments: [
            pass.identifier.passTypeIdentifier, pass.identifier.serialNumber, version, Data(pass.bytes), pass.sha256,
            pass.contentDigest, pass.authenticationToken, pass.webServiceURL, pass.voided, modifiedAt, Timestamp(Date()).text,
            sequence,
        ])
        try enqueuePushes(db, in: .passes, pass.identifier.passTypeIdentifier, pass.identifier.serialNumber)
    }

    /// Appends a pass's change to the history log; returns the entry's sequence number.
    @discardableResult
    private static func logPassChange(_ db: Database, _ identifier: PassIdentifier, _ kind: ChangeRecord<PassIdentifier>.Kind)
        throws -> Int64
    {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO changes (orderTypeIdentifier, orderIdentifier, kind, archiveKind) VALUES (?, ?, ?, 'pass')")
        try statement.execute(arguments: [identifier.passTypeIdentifier, identifier.serialNumber, kind.rawValue])
        return db.lastInsertedRowID
    }

    /// Schema v13: passes, their earlier versions and their device registrations; the change log
    /// says which kind each entry is of.
    static func migrateToPasses(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE passes (
                    passTypeIdentifier TEXT NOT NULL,
                    serialNumber TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    archive BLOB NOT NULL,
                    sha256 TEXT NOT NULL,
                    contentDigest TEXT,
                    authenticationToken TEXT,
                    previousAuthenticationToken TEXT,
                    webServiceURL TEXT,
                    voided INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL,
                    savedAt TEXT NOT NULL,
                    changeSequence INTEGER NOT NULL,
                    PRIMARY KEY (passTypeIdentifier, serialNumber)
                );
                CREATE TABLE passVersions (
                    passTypeIdentifier TEXT NOT NULL,
                    serialNumber TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    archive BLOB NOT NULL,
                    sha256 TEXT NOT NULL,
                    voided INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL,
                    PRIMARY KEY (passTypeIdentifier, serialNumber, version)
                );
                CREATE TABLE passRegistrations (
                    passTypeIdentifier TEXT NOT NULL,
                    serialNumber TEXT NOT NULL,
                    deviceIdentifier TEXT NOT NULL,
                    pushToken TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    PRIMARY KEY (passTypeIdentifier, serialNumber, deviceIdentifier)
                );
                CREATE INDEX passRegistrationsByDevice ON passRegistrations (deviceIdentifier, passTypeIdentifier);
                CREATE INDEX passRegistrationsByPushToken ON passRegistrations (pushToken, passTypeIdentifier);
                ALTER TABLE changes ADD COLUMN archiveKind TEXT NOT NULL DEFAULT 'order';
                """)
    }
}

// The pass web service's registrations, with the orders' queries (`RegistrationTables`).
extension SQLiteOrderStore: PassRegistrationStoring {
    public func passAccessRecord(for identifier: PassIdentifier, archiveIf wantsArchive: (PassAccessRecord) -> Bool) async throws
        -> (record: PassAccessRecord, archive: [UInt8]?)?
    {
        // As ``accessRecord(for:archiveIf:)``: one statement on a lookup connection, the archive
        // (the last column) read only when it is wanted.
        try performSync("read") { _ in
            try withLookup { db -> (record: PassAccessRecord, archive: [UInt8]?)? in
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT authenticationToken, previousAuthenticationToken, modifiedAt, sha256, archive
                        FROM passes WHERE passTypeIdentifier = ? AND serialNumber = ?
                        """)
                let cursor = try Row.fetchCursor(statement, arguments: [identifier.passTypeIdentifier, identifier.serialNumber])
                guard let row = try cursor.next() else { return nil }
                let record = PassAccessRecord(
                    identifier: identifier, authenticationToken: row[0], previousAuthenticationToken: row[1], modifiedAt: row[2],
                    sha256: row[3])
                guard wantsArchive(record) else { return (record, nil) }
                return (record, try row.withUnsafeData(atIndex: 4) { data in data.map { [UInt8]($0) } ?? [] })
            }
        }
    }

    public func register(deviceIdentifier: String, pushToken: String, for pass: PassIdentifier, limits: RegistrationLimits) async throws
        -> DeviceRegistrationResult
    {
        try await register(
            deviceIdentifier: deviceIdentifier, pushToken: pushToken, in: .passes, pass.passTypeIdentifier, pass.serialNumber,
            limits: limits)
    }

    @discardableResult
    public func unregister(deviceIdentifier: String, from pass: PassIdentifier) async throws -> Bool {
        try await unregister(deviceIdentifier: deviceIdentifier, in: .passes, pass.passTypeIdentifier, pass.serialNumber)
    }

    public func changedPasses(deviceIdentifier: String, passTypeIdentifier: String, since tag: String?) async throws -> ChangedPasses? {
        ChangedPasses(
            changes: try changes(deviceIdentifier: deviceIdentifier, in: .passes, passTypeIdentifier, since: try ChangedPasses.tag(tag)),
            storeID: storeID)
    }

    public func isRegistered(deviceIdentifier: String, passTypeIdentifier: String) async throws -> Bool {
        try isRegistered(deviceIdentifier: deviceIdentifier, in: .passes, passTypeIdentifier)
    }

    public func registrations(for pass: PassIdentifier) async throws -> [DeviceRegistration] {
        try await registrations(in: .passes, pass.passTypeIdentifier, pass.serialNumber)
    }
}
