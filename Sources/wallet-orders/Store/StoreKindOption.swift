import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersPostgres
import WalletOrdersStore
import WalletPasses

/// `--kind order|pass`: which kind of archive a store command means.
struct StoreKindOption: ParsableArguments {
    @Option(
        name: .customLong("kind"),
        help: ArgumentHelp(
            "order or pass (default: the kind the store holds under the identifier; for list and history, order).", valueName: "kind"))
    var argument: Kind?

    /// `order` or `pass` on the command line.
    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case order, pass
    }

    /// The kind given, if one was.
    var kind: ArchiveKind? { argument.flatMap { ArchiveKind(rawValue: $0.rawValue) } }

    /// The kind stored under `identifier`: the one given, else an order when one is stored,
    /// else a pass when one is, else `nil` (nothing is stored under it).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` when both an order and a pass
    ///   are stored under it and `--kind` doesn't say which.
    func resolve(_ identifier: FullyQualifiedOrderIdentifier, in store: any AnyOrderStore) async throws -> ArchiveKind? {
        if let kind { return kind }
        let order = try await store.summary(for: identifier) != nil
        let pass = try await store.passSummary(for: identifier.pass) != nil
        if order && pass {
            throw WalletOrdersError(
                .invalidConfiguration, "The store holds both an order and a pass under \(identifier).",
                hint: "Say which with --kind order or --kind pass.")
        }
        return order ? .order : pass ? .pass : nil
    }
}

extension FullyQualifiedOrderIdentifier {
    /// The same two halves as a pass's (`passTypeIdentifier`, `serialNumber`).
    var pass: PassIdentifier { PassIdentifier(passTypeIdentifier: orderTypeIdentifier, serialNumber: orderIdentifier) }
}

extension StoredPassSummary {
    /// The table `store get` and `store list --kind pass` print.
    static func printTable(_ passes: [StoredPassSummary]) {
        let header = ["modified", "version", "voided", "size", "pass"]
        let cells = passes.map {
            [
                Timestamp(secondsSince1970: $0.current.modifiedAt).text, "\($0.current.version)", $0.current.voided ? "yes" : "no",
                "\($0.current.archiveSize) B", $0.identifier.stringForm,
            ]
        }
        TextTable.print(header, cells)
    }
}

/// A table on the terminal: a bold header and left-aligned columns two spaces apart.
enum TextTable {
    static func print(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            values.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        Terminal.write(Terminal.styled(line(header), .bold))
        for values in rows { Terminal.write(line(values)) }
    }
}
