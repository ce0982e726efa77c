import WalletOrdersJSON

/// The content rules' one walk of `order.json`.
///
/// The rules that look at every part of the tree (money objects, country codes, number sizes,
/// file references, localizable strings) are handed what they look at as the walk passes it;
/// each adds to its own list of findings, so the report lists the areas in the order
/// ``OrderValidator`` names them, and within an area in document order, exactly as a walk per
/// rule did. Rules that must see the whole order before they judge (files, localization keys)
/// collect here and judge afterwards. The schema evaluator walks the tree once more, on its own:
/// it follows the schema, not the document.
///
/// The path is a stack of tokens; it becomes a JSON Pointer string only for a finding.
struct ContentWalk {
    let context: ValidationContext
    /// `money.*` findings of amounts and currencies, object by object.
    private(set) var money: [Diagnostic] = []
    /// `json.number-unrepresentable` findings.
    private(set) var numbers: [Diagnostic] = []
    /// `address.*` findings.
    private(set) var addresses: [Diagnostic] = []
    /// Every member naming a file (`logo`, `image`, `receipt`, …), for ``FileRules``.
    private(set) var fileReferences: [FileRules.Reference] = []
    /// Every localizable string, for ``LocalizationRules``.
    private(set) var localizableStrings: [LocalizationRules.UsedString] = []
    private var path = JSONPath()
    /// Indices into ``roles`` (-1: none) of the members of the objects being visited, outermost first.
    private var memberRoles: [Int] = []

    /// Walks `context.root`, if there is one.
    init(context: ValidationContext) {
        self.context = context
        path.tokens.reserveCapacity(16)
        if let root = context.root { visit(root, isAmount: false) }
    }

    /// What a member's key means to the rules the walk feeds. Each rule declares its keys; the
    /// walk looks each member's key up once, instead of comparing it with every rule's names.
    private enum Role {
        case amount, currency, countryCode, localizable
        case file(FileRules.ReferenceKind)
    }

    private static let roles: (keys: ExactKeyTable, roles: [Role]) = {
        var keys = ExactKeyTable()
        var roles: [Role] = []
        func add(_ key: String, _ role: Role) {
            precondition(keys.insert(key).inserted, "two rules claim the key '\(key)'")
            roles.append(role)
        }
        add(MoneyRules.amountKey, .amount)
        add(MoneyRules.currencyKey, .currency)
        add(AddressRules.countryCodeKey, .countryCode)
        for (key, kind) in FileRules.referenceKeys { add(key, .file(kind)) }
        for key in LocalizationRules.localizableKeys { add(key, .localizable) }
        return (keys, roles)
    }()

    private mutating func visit(_ node: JSONNode, isAmount: Bool) {
        switch node.value {
        case .object(let members):
            let table = Self.roles
            // The roles of this object's members sit at the end of `memberRoles` while its
            // members are visited (the members' own objects push theirs after them and pop them).
            // One array for the whole walk: nothing allocated per object, nothing on the stack.
            let base = memberRoles.count
            var amount: JSONNode?
            var currency: JSONNode?
            // By index: copying each member costs a retain and a release of its key and value.
            for position in members.indices {
                let role = table.keys.index(of: members[position].key) ?? -1
                memberRoles.append(role)
                guard role >= 0 else { continue }
                switch table.roles[role] {
                case .amount: if amount == nil { amount = members[position].value }
                case .currency: if currency == nil { currency = members[position].value }
                default: break
                }
            }
            if let amount, let code = currency?.stringValue {
                MoneyRules.visit(amount: amount, currency: code, at: path, context: context, into: &money)
            }
            for position in members.indices {
                path.tokens.append(.key(members[position].key))
                let roleIndex = memberRoles[base + position]
                let role = roleIndex >= 0 ? table.roles[roleIndex] : nil
                if let role, case .string(let value) = members[position].value.value {
                    switch role {
                    case .countryCode:
                        AddressRules.visit(countryCode: value, at: path, context: context, into: &addresses)
                    case .file(let kind):
                        fileReferences.append(.init(name: value, path: path, kind: kind))
                    case .localizable:
                        localizableStrings.append(.init(value: value, path: path))
                    case .amount, .currency:
                        break
                    }
                }
                var memberIsAmount = false
                if case .amount = role { memberIsAmount = currency != nil }
                visit(members[position].value, isAmount: memberIsAmount)
                path.tokens.removeLast()
            }
            memberRoles.removeLast(members.count)
        case .array(let elements):
            for index in elements.indices {
                path.tokens.append(.index(index))
                visit(elements[index], isAmount: false)
                path.tokens.removeLast()
            }
        case .number(let text):
            NumberSizeRules.visit(number: text, isAmount: isAmount, at: path, position: node.position, context: context, into: &numbers)
        case .string(let text) where isAmount:
            NumberSizeRules.visit(amount: text, at: path, position: node.position, context: context, into: &numbers)
        case .null, .bool, .string:
            break
        }
    }
}
