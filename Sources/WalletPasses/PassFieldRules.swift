import WalletOrdersJSON

/// The rules of a pass's fields (passes specification §3.3 and §3.4): keys unique across the
/// pass, change messages, values that suit their formatting options, rows, and how many fields
/// each style shows. The device escalates a field warning to a refusal in the header, primary
/// and auxiliary fields and only logs it elsewhere, so most rules come in pairs: an error there,
/// a warning (`-logged`) in the other lists.
enum PassFieldRules {
    static func check(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        checkFields(root, context: context, into: &findings)
        checkFieldCounts(root, context: context, into: &findings)
    }

    /// The field lists whose warnings fail the pass (the device escalates a field warning there)
    /// and those where it is only logged (passes specification §3.3, from `_PKValidateStyleFields`).
    static let fatalFieldLists: Set<String> = ["headerFields", "primaryFields", "auxiliaryFields"]
    static let fieldLists = ["headerFields", "primaryFields", "secondaryFields", "auxiliaryFields", "backFields", "additionalInfoFields"]

    /// Where a field is: its style, list and index, and whether the device fails the pass for a
    /// warning about it (``fatalFieldLists``).
    struct Place {
        var style: String
        var list: String
        var index: Int
        var fatal: Bool

        var pointer: String { "/\(style)/\(list)/\(index)" }
        /// What a finding adds where the device only logs the problem.
        var logged: String { fatal ? "" : " In \(list) the device only logs it." }
    }

    /// The members of a field the rules read, found in one pass over it.
    struct Members {
        var key: String?
        var value: JSONNode?
        var changeMessage: String?
        var dateStyle = false
        var timeStyle = false
        var numberStyle = false
        var currencyCode = false
        var row: JSONNode?

        init(_ members: [JSONMember]) {
            for member in members {
                switch member.key {
                case "key": key = key ?? member.value.stringValue
                case "value": value = value ?? member.value
                case "changeMessage": changeMessage = changeMessage ?? member.value.stringValue
                case "dateStyle": dateStyle = true
                case "timeStyle": timeStyle = true
                case "numberStyle": numberStyle = true
                case "currencyCode": currencyCode = true
                case "row": row = row ?? member.value
                default: break
                }
            }
        }
    }

    /// Every field of every style and list, in order, with where it is.
    static func forEachField(_ root: JSONNode, _ body: (_ field: Members, _ place: Place) -> Void) {
        for style in PassRules.styles {
            guard let fields = root[style], fields.members != nil else { continue }
            // In the device's order, which decides which of two fields with one key is "again".
            for list in fieldLists {
                guard let elements = fields[list]?.elements else { continue }
                let fatal = fatalFieldLists.contains(list)
                for (index, field) in elements.enumerated() {
                    guard let members = field.members else { continue }
                    body(Members(members), Place(style: style, list: list, index: index, fatal: fatal))
                }
            }
        }
    }

    /// Field keys unique across the pass (`fields.duplicate-key`, or `-logged` where the device
    /// only logs it), change messages with exactly one `%@` (`fields.change-message`, `-logged`),
    /// values that suit their formatting options and rows 0 or 1 (`fields.invalid`, `-logged`).
    static func checkFields(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        var seen: [String: Place] = [:]
        forEachField(root) { field, place in
            if let key = field.key {
                if let first = seen[key] {
                    findings.append(
                        context.diagnostic(
                            place.fatal ? .fieldsDuplicateKey : .fieldsDuplicateKeyLogged,
                            "The field key '\(key)' is used again (first at \(first.pointer)). Wallet logs: 'more than one field has the key '\(key)'. Field keys must be unique.'\(place.logged)",
                            pointer: place.pointer + "/key", hint: "Give every field of the pass its own key."))
                } else {
                    seen[key] = place
                }
            }
            // An empty changeMessage asks for no notification: two Apple-signed passes Wallet
            // shows carry one in their header and primary fields.
            if let message = field.changeMessage, !message.isEmpty, let problem = changeMessageProblem(message) {
                findings.append(
                    context.diagnostic(
                        place.fatal ? .fieldsChangeMessage : .fieldsChangeMessageLogged, "changeMessage '\(message)' \(problem)\(place.logged)",
                        pointer: place.pointer + "/changeMessage",
                        hint: "Write one %@ where the new value goes, such as 'Gate changed to %@.' (%% for a percent sign)."))
            }
            if let (problem, at, hint) = formattingProblem(field) ?? rowProblem(field) {
                findings.append(
                    context.diagnostic(
                        place.fatal ? .fieldsInvalid : .fieldsInvalidLogged, problem + place.logged, pointer: place.pointer + "/" + at, hint: hint))
            }
        }
    }

    /// `row` other than 0 or 1: the device warns (an event ticket has two rows of auxiliary fields).
    static func rowProblem(_ field: Members) -> (message: String, key: String, hint: String)? {
        guard let row = field.row, case .number(let text) = row.value, let value = Double(text), value >= 2 else { return nil }
        return (
            "row \(text): an event ticket has two rows of auxiliary fields, 0 and 1, and Wallet warns about another.", "row",
            "Use 0 for the first row or 1 for the second."
        )
    }

    /// What is wrong with a field's value for its formatting options, with the device's words
    /// (passes specification §3.4, from the device's field validation): date options need a
    /// W3C date-time, number options a JSON number, and a field takes one kind of option.
    static func formattingProblem(_ field: Members) -> (message: String, key: String, hint: String)? {
        guard field.dateStyle || field.timeStyle || field.numberStyle || field.currencyCode else { return nil }
        let dateOptions = [field.dateStyle ? "dateStyle" : nil, field.timeStyle ? "timeStyle" : nil].compactMap { $0 }
        let numberOptions = [field.numberStyle ? "numberStyle" : nil, field.currencyCode ? "currencyCode" : nil].compactMap { $0 }
        if numberOptions.count == 2 {
            return (
                "The field has both a numberStyle and a currencyCode; Wallet logs 'It should be one or the other'.", "numberStyle",
                "Keep currencyCode for an amount of money, numberStyle for another number."
            )
        }
        if !dateOptions.isEmpty && !numberOptions.isEmpty {
            return (
                "The field has date options (\(dateOptions.joined(separator: ", "))) and number options (\(numberOptions.joined(separator: ", "))); its value is one or the other.",
                numberOptions[0], "Keep the options that match the value."
            )
        }
        guard let value = field.value else { return nil }
        if let option = dateOptions.first {
            if let text = value.stringValue, isW3CDateTime(text) { return nil }
            return (
                "The value \(describe(value)) isn't a date, but the field has \(option). Wallet logs: 'There are date formatting options, so this should be a string parseable as a date.'",
                "value", "Write a W3C date-time with its time zone, such as 2027-05-15T08:00:00+02:00, or remove \(option)."
            )
        }
        if let option = numberOptions.first {
            if case .number = value.value { return nil }
            return (
                "The value \(describe(value)) isn't a number, but the field has \(option); Wallet formats only a JSON number with it.", "value",
                "Write the value as a JSON number (21.75, not \"21.75\"), or remove \(option)."
            )
        }
        return nil
    }

    /// A value as the message quotes it: a string in quotes, anything else as JSON's type.
    static func describe(_ value: JSONNode) -> String {
        switch value.value {
        case .string(let text): return "'\(text.count > 60 ? text.prefix(57) + "…" : text)'"
        case .number(let text): return text
        default: return "(not a string)"
        }
    }

    /// Whether `text` is a W3C date-time as Wallet reads one: a date, hours and minutes,
    /// optional seconds and fraction, and a zone, `Z` or `±HH:MM` (the same pattern as
    /// `$defs/DateTime` in `Schemas/pass.schema.json`).
    static func isW3CDateTime(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func isDigit(_ index: Int) -> Bool { index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 }
        func digits(_ range: Range<Int>) -> Bool { range.allSatisfy(isDigit) }
        func byte(_ index: Int, is character: Character) -> Bool { index < bytes.count && bytes[index] == character.asciiValue }
        guard digits(0..<4), byte(4, is: "-"), digits(5..<7), byte(7, is: "-"), digits(8..<10), byte(10, is: "T"), digits(11..<13),
            byte(13, is: ":"), digits(14..<16)
        else { return false }
        var index = 16
        if byte(index, is: ":") {
            guard digits(index + 1..<index + 3) else { return false }
            index += 3
            if byte(index, is: ".") {
                index += 1
                guard isDigit(index) else { return false }
                while isDigit(index) { index += 1 }
            }
        }
        if byte(index, is: "Z") { return index + 1 == bytes.count }
        guard byte(index, is: "+") || byte(index, is: "-") else { return false }
        return digits(index + 1..<index + 3) && byte(index + 3, is: ":") && digits(index + 4..<index + 6) && index + 6 == bytes.count
    }

    /// What is wrong with a change message, with the device's words: it needs exactly one `%@`
    /// and no other format code (`%%` is a percent sign).
    static func changeMessageProblem(_ message: String) -> String? {
        var placeholders = 0
        var others: [String] = []
        var characters = message.makeIterator()
        while let character = characters.next() {
            guard character == "%" else { continue }
            switch characters.next() {
            case "@": placeholders += 1
            case "%": continue
            case let other: others.append("%" + (other.map(String.init) ?? ""))
            }
        }
        if !others.isEmpty {
            return
                "has a format code other than %@ (\(others.joined(separator: ", "))). Wallet logs: 'Change message … has a format code other than %%@'."
        }
        if placeholders == 0 { return "has no %@ for the new value. Wallet logs: 'Change message %@ needs to contain %%@.'" }
        if placeholders > 1 { return "has more than one %@. Wallet logs: 'Change message … has more than one %%@'." }
        return nil
    }

    /// `fields.too-many`: more fields on the front than the style shows (the HIG's limits; what
    /// doesn't fit is not shown, so a warning).
    static func checkFieldCounts(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        for style in PassRules.styles {
            guard let fields = root[style], fields.members != nil else { continue }
            func count(_ list: String) -> Int { fields[list]?.elements?.count ?? 0 }
            var limits: [(lists: [String], limit: Int)] = [(["headerFields"], 3), (["secondaryFields"], 4)]
            switch style {
            case "boardingPass": limits += [(["primaryFields"], 2), (["auxiliaryFields"], 5)]
            case "coupon", "storeCard": limits += [(["primaryFields"], 1), (["secondaryFields", "auxiliaryFields"], 4)]
            case "eventTicket": limits += [(["primaryFields"], 1), (["auxiliaryFields"], 8)]
            case "posterGeneric": limits = [(["headerFields"], 1), (["primaryFields"], 4)]
            default: limits += [(["primaryFields"], 1), (["auxiliaryFields"], 4)]
            }
            for (lists, limit) in limits {
                let total = lists.map(count).reduce(0, +)
                guard total > limit else { continue }
                findings.append(
                    context.diagnostic(
                        .fieldsTooMany,
                        "\(style) has \(total) \(lists.joined(separator: " and ")); Wallet shows at most \(limit) on the front of a \(style) pass, and the rest don't display.",
                        pointer: "/\(style)/\(lists.last ?? "")",
                        hint: "Move the others to backFields, which has room for any number."))
            }
        }
    }
}
