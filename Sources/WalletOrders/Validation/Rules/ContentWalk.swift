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

    /// Walks `context.root`, if there is one.
    init(context: ValidationContext) {
        self.context = context
        path.tokens.reserveCapacity(16)
        if let root = context.root { visit(root, isAmount: false) }
    }

    private mutating func visit(_ node: JSONNode, isAmount: Bool) {
        switch node.value {
        case .object(let members):
            MoneyRules.visit(object: members, at: path, context: context, into: &money)
            var hasCurrency = false
            for member in members where member.key == "currency" {
                hasCurrency = true
                break
            }
            for member in members {
                path.tokens.append(.key(member.key))
                if case .string(let value) = member.value.value {
                    AddressRules.visit(key: member.key, value: value, at: path, context: context, into: &addresses)
                    if let kind = FileRules.referenceKind(of: member.key) {
                        fileReferences.append(
                            .init(name: value, pointer: path.pointer, isImage: kind.isImage, isProductImage: kind.isProductImage))
                    }
                    if LocalizationRules.isLocalizable(member.key) {
                        localizableStrings.append(.init(value: value, path: path))
                    }
                }
                visit(member.value, isAmount: hasCurrency && member.key == "amount")
                path.tokens.removeLast()
            }
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
