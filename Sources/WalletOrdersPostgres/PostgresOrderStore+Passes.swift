import Foundation
import Logging
import NIOCore
import PostgresNIO
import WalletOrders
public import WalletOrdersStore
public import WalletPasses

// Passes beside the orders, as on SQLite: `passes` holds each pass's newest version,
// `pass_versions` the versions before it, and the `changes` log (and its one counter) both kinds.
extension PostgresOrderStore: PassStoring {
    public func save(verifiedPass: VerifiedPassArchive) async throws -> PassSaveReceipt {
        try await save(verifiedPasses: [verifiedPass])[0]
    }

    public func save(verifiedPasses: [VerifiedPassArchive]) async throws -> [PassSaveReceipt] {
        let now = Int64(Date().timeIntervalSince1970.rounded(.down))
        return try await writeTransaction("save to") { connection, writer in
            var receipts: [PassSaveReceipt] = []
            for incoming in verifiedPasses {
                let stored = try await Self.storedPassState(connection, incoming.identifier, logger: writer.logger)
                let decision = PassStoreDecision.save(stored: stored, incoming: incoming)
                if case .write(let version, _) = decision {
                    try await writer.writePass(
                        connection, incoming, version: version, modifiedAt: PassStoreDecision.modifiedAt(now: now, stored: stored),
                        replacing: stored != nil)
                }
                receipts.append(decision.receipt(for: incoming, stored: stored))
            }
            return receipts
        }
    }

    public func passArchive(for identifier: PassIdentifier, version: Int?) async throws -> [UInt8]? {
        try await withConnection("read") { [logger] connection -> [UInt8]? in
            let (type, serial) = (identifier.passTypeIdentifier, identifier.serialNumber)
            let rows: PostgresRowSequence
            if let version {
                rows = try await connection.query(
                    """
                    SELECT archive FROM passes WHERE pass_type_identifier = \(type) AND serial_number = \(serial) AND version = \(Int64(version))
                    UNION ALL SELECT archive FROM pass_versions
                    WHERE pass_type_identifier = \(type) AND serial_number = \(serial) AND version = \(Int64(version))
                    """, logger: logger)
            } else {
                rows = try await connection.query(
                    "SELECT archive FROM passes WHERE pass_type_identifier = \(type) AND serial_number = \(serial)", logger: logger)
            }
            for try await row in rows { return Array(try row.decode(ByteBuffer.self).readableBytesView) }
            return nil
        }
    }

    public func passSummary(for identifier: PassIdentifier) async throws -> StoredPassSummary? {
        try await withConnection("read") { [logger] connection -> StoredPassSummary? in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.passColumns) FROM passes
                WHERE pass_type_identifier = \(identifier.passTypeIdentifier) AND serial_number = \(identifier.serialNumber)
                """, logger: logger)
            for try await row in rows { return try Self.passSummary(row) }
            return nil
        }
    }

    public func passVersions(for identifier: PassIdentifier) async throws -> [StoredPassVersion] {
        try await withConnection("read") { [logger] connection -> [StoredPassVersion] in
            let (type, serial) = (identifier.passTypeIdentifier, identifier.serialNumber)
            let rows = try await connection.query(
                """
                SELECT version, sha256, octet_length(archive), voided, modified_at FROM pass_versions
                    WHERE pass_type_identifier = \(type) AND serial_number = \(serial)
                UNION ALL SELECT version, sha256, octet_length(archive), voided, modified_at FROM passes
                    WHERE pass_type_identifier = \(type) AND serial_number = \(serial)
                ORDER BY version
                """, logger: logger)
            var versions: [StoredPassVersion] = []
            for try await row in rows {
                let (version, sha256, size, voided, modifiedAt) = try row.decode((Int64, String, Int32, Bool, Int64).self)
                versions.append(
                    StoredPassVersion(version: Int(version), sha256: sha256, archiveSize: Int(size), voided: voided, modifiedAt: modifiedAt))
            }
            return versions
        }
    }

    public func listPasses(_ query: PassQuery) async throws -> PassListPage {
        var conditions: [String] = []
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let type = query.passTypeIdentifier { conditions.append("pass_type_identifier = \(bind(type))") }
        if let types = query.passTypeIdentifiers { conditions.append("pass_type_identifier = ANY(\(bind(types.sorted())))") }
        if let voided = query.voided { conditions.append("voided = \(bind(voided))") }
        if let after = query.after {
            conditions.append("(pass_type_identifier, serial_number) > (\(bind(after.passTypeIdentifier)), \(bind(after.serialNumber)))")
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let limit = bind(Int64(query.limit) + 1)
        let statement = PostgresQuery(
            unsafeSQL: "SELECT \(Self.passColumns) FROM passes \(filter) ORDER BY pass_type_identifier, serial_number LIMIT \(limit)",
            binds: binds)
        let summaries = try await withConnection("read") { [logger] connection -> [StoredPassSummary] in
            var summaries: [StoredPassSummary] = []
            for try await row in try await connection.query(statement, logger: logger) { summaries.append(try Self.passSummary(row)) }
            return summaries
        }
        let passes = Array(summaries.prefix(query.limit))
        return PassListPage(passes: passes, nextCursor: summaries.count > query.limit ? passes.last?.identifier : nil)
    }

    public func deletePass(_ identifier: PassIdentifier) async throws -> Bool {
        try await writeTransaction("delete from") { connection, writer in
            let (type, serial) = (identifier.passTypeIdentifier, identifier.serialNumber)
            var deleted = false
            for try await _ in try await connection.query(
                "DELETE FROM passes WHERE pass_type_identifier = \(type) AND serial_number = \(serial) RETURNING 1", logger: writer.logger)
            {
                deleted = true
            }
            guard deleted else { return false }
            try await connection.query(
                "DELETE FROM pass_versions WHERE pass_type_identifier = \(type) AND serial_number = \(serial)", logger: writer.logger)
            try await connection.query(
                "DELETE FROM pass_registrations WHERE pass_type_identifier = \(type) AND serial_number = \(serial)", logger: writer.logger)
            try await writer.logEntry(connection, type, serial, "deleted", of: .pass)
            return true
        }
    }

    public func passHistory(since token: OrderHistoryToken?, limit: Int?) async throws -> PassChanges {
        try await changeLog(
            of: .pass, since: token, limit: limit,
            present: "SELECT pass_type_identifier, serial_number FROM passes ORDER BY pass_type_identifier, serial_number"
        ) { PassIdentifier(passTypeIdentifier: $0, serialNumber: $1) }
    }

    // MARK: - Rows

    static let passColumns = """
        pass_type_identifier, serial_number, version, sha256, octet_length(archive), voided, modified_at, authentication_token,
        web_service_url, change_sequence
        """

    static func passSummary(_ row: PostgresRow) throws -> StoredPassSummary {
        let (type, serial, version, sha256, size, voided, modifiedAt, token, url, sequence) = try row.decode(
            (String, String, Int64, String, Int32, Bool, Int64, String?, String?, Int64).self)
        return StoredPassSummary(
            identifier: PassIdentifier(passTypeIdentifier: type, serialNumber: serial),
            current: StoredPassVersion(version: Int(version), sha256: sha256, archiveSize: Int(size), voided: voided, modifiedAt: modifiedAt),
            authenticationToken: token, webServiceURL: url, changeSequence: sequence)
    }

    static func storedPassState(_ connection: PostgresConnection, _ identifier: PassIdentifier, logger: Logger) async throws
        -> StoredPassState?
    {
        let rows = try await connection.query(
            """
            SELECT version, sha256, content_digest, voided, modified_at FROM passes
            WHERE pass_type_identifier = \(identifier.passTypeIdentifier) AND serial_number = \(identifier.serialNumber)
            FOR UPDATE
            """, logger: logger)
        for try await row in rows {
            let (version, sha256, digest, voided, modifiedAt) = try row.decode((Int64, String, String?, Bool, Int64).self)
            return StoredPassState(version: Int(version), sha256: sha256, contentDigest: digest, voided: voided, modifiedAt: modifiedAt)
        }
        return nil
    }
}

extension PostgresOrderStore.Writer {
    /// Writes a pass's new version (the replaced one joins its earlier versions) and logs the change.
    func writePass(_ connection: PostgresConnection, _ pass: VerifiedPassArchive, version: Int, modifiedAt: Int64, replacing: Bool)
        async throws
    {
        let (type, serial) = (pass.identifier.passTypeIdentifier, pass.identifier.serialNumber)
        if replacing {
            try await connection.query(
                """
                INSERT INTO pass_versions (pass_type_identifier, serial_number, version, archive, sha256, voided, modified_at)
                SELECT pass_type_identifier, serial_number, version, archive, sha256, voided, modified_at FROM passes
                WHERE pass_type_identifier = \(type) AND serial_number = \(serial)
                """, logger: logger)
        }
        let sequence = try await logEntry(connection, type, serial, replacing ? "updated" : "inserted", of: .pass)
        try await connection.query(
            """
            INSERT INTO passes (pass_type_identifier, serial_number, version, archive, sha256, content_digest, authentication_token,
                web_service_url, voided, modified_at, saved_at, change_sequence)
            VALUES (\(type), \(serial), \(Int64(version)), \(ByteBuffer(bytes: pass.bytes)), \(pass.sha256), \(pass.contentDigest),
                \(pass.authenticationToken), \(pass.webServiceURL), \(pass.voided), \(modifiedAt), \(Timestamp(Date()).text), \(sequence))
            ON CONFLICT (pass_type_identifier, serial_number) DO UPDATE SET
                version = EXCLUDED.version, archive = EXCLUDED.archive, sha256 = EXCLUDED.sha256,
                content_digest = EXCLUDED.content_digest, authentication_token = EXCLUDED.authentication_token,
                web_service_url = EXCLUDED.web_service_url, voided = EXCLUDED.voided, modified_at = EXCLUDED.modified_at,
                saved_at = EXCLUDED.saved_at, change_sequence = EXCLUDED.change_sequence,
                previous_authentication_token = CASE
                    WHEN passes.authentication_token IS DISTINCT FROM EXCLUDED.authentication_token THEN passes.authentication_token
                    ELSE passes.previous_authentication_token END
            """, logger: logger)
        try await enqueuePushes(connection, in: .passes, type, serial)
    }
}

// The pass web service's registrations, with the orders' queries (`RegistrationTables`).
extension PostgresOrderStore: PassRegistrationStoring {
    public func passAccessRecord(for identifier: PassIdentifier, archiveIf wantsArchive: (PassAccessRecord) -> Bool) async throws
        -> (record: PassAccessRecord, archive: [UInt8]?)?
    {
        // As ``accessRecord(for:archiveIf:)``: the record, then the archive of its version only
        // when it is wanted, read again when a save replaced it in between.
        let (type, serial) = (identifier.passTypeIdentifier, identifier.serialNumber)
        while true {
            let record = try await withConnection("read") { [logger] connection -> PassAccessRecord? in
                for try await row in try await connection.query(
                    """
                    SELECT authentication_token, previous_authentication_token, modified_at, sha256 FROM passes
                    WHERE pass_type_identifier = \(type) AND serial_number = \(serial)
                    """, logger: logger)
                {
                    let (token, previous, modifiedAt, sha256) = try row.decode((String?, String?, Int64, String).self)
                    return PassAccessRecord(
                        identifier: identifier, authenticationToken: token, previousAuthenticationToken: previous, modifiedAt: modifiedAt,
                        sha256: sha256)
                }
                return nil
            }
            guard let record else { return nil }
            guard wantsArchive(record) else { return (record, nil) }
            let archive = try await withConnection("read") { [logger] connection -> [UInt8]? in
                for try await row in try await connection.query(
                    """
                    SELECT archive FROM passes
                    WHERE pass_type_identifier = \(type) AND serial_number = \(serial) AND sha256 = \(record.sha256)
                    """, logger: logger)
                {
                    return Array(try row.decode(ByteBuffer.self).readableBytesView)
                }
                return nil
            }
            if let archive { return (record, archive) }
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
            changes: try await changes(
                deviceIdentifier: deviceIdentifier, in: .passes, passTypeIdentifier, since: try ChangedPasses.tag(tag)),
            storeID: storeID)
    }

    public func isRegistered(deviceIdentifier: String, passTypeIdentifier: String) async throws -> Bool {
        try await isRegistered(deviceIdentifier: deviceIdentifier, in: .passes, passTypeIdentifier)
    }

    public func registrations(for pass: PassIdentifier) async throws -> [DeviceRegistration] {
        try await registrations(in: .passes, pass.passTypeIdentifier, pass.serialNumber)
    }
}
