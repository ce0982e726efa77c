// Why this file is long (about 850 lines): it is one evaluator. `SchemaEvaluator` walks an
// instance and a compiled schema together, and its keyword handlers share private state (the
// instance path, the dynamic scope, the depth guard, collecting or not); keeping them in one
// file keeps that state private. Its annotation sets live in SchemaAnnotations.swift.

/// Runs a ``SchemaProgram`` against one instance.
///
/// In *collecting* mode every failing keyword appends a ``SchemaViolation``; otherwise the
/// evaluation stops at the first failure. Subschemas whose failure is not itself an error (the
/// alternatives of `anyOf`/`oneOf`, `not`, `if`, `contains`) are always evaluated without
/// collecting; only when an `anyOf`/`oneOf` fails are its alternatives evaluated again,
/// collecting, to say which came closest. The instance location is a stack of tokens that becomes
/// a JSON Pointer string only for a violation.
struct SchemaEvaluator {
    /// How deeply subschemas may apply to one instance location, one inside the other (through
    /// `$ref`, `allOf`, …) before evaluation gives up: a `$ref` cycle that never moves into the
    /// instance stops here instead of overflowing the stack. Moving into a property or item starts
    /// the count again, so deep instances are fine.
    static let maxDepth = 200

    let program: SchemaProgram
    let nodes: [SchemaNode]
    let tracking: Bool
    var collecting: Bool
    var violations: [SchemaViolation] = []
    private var path: [PathToken] = []
    /// Nesting at the current instance location (see ``maxDepth``).
    private var depth = 0
    private var dynamicScope: [Int] = []

    init(program: SchemaProgram, collecting: Bool) {
        self.program = program
        self.nodes = program.nodes
        self.tracking = program.tracksAnnotations
        self.collecting = collecting
        path.reserveCapacity(16)
    }

    // MARK: Nodes

    /// Evaluates node `index` against `instance`, adding what it evaluated to `annotations`.
    /// `inherited` is the node whose `description` explains violations of a node without one.
    mutating func evaluate(_ index: Int, _ instance: JSONNode, _ annotations: inout Annotations, inherited: Int) -> Bool {
        let node = nodes[index]
        if let constant = node.constant {
            if !constant && collecting {
                report(
                    node.holder.isEmpty ? "false" : node.holder, at: instance.position, schemaPointer: node.location,
                    "no value is allowed here", describing: inherited)
            }
            return constant
        }
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maxDepth {
            if collecting {
                report(
                    "$ref", at: instance.position, schemaPointer: node.location,
                    "the schema applies more than \(Self.maxDepth) subschemas inside each other here without moving into the value (a '$ref' cycle?)",
                    describing: inherited)
            }
            return false
        }
        var pushedScope = false
        if program.usesDynamicScope && dynamicScope.last != node.resource {
            dynamicScope.append(node.resource)
            pushedScope = true
        }
        defer { if pushedScope { dynamicScope.removeLast() } }
        let describing = node.description != nil ? index : inherited
        var valid = true

        if let types = node.types, !Self.matches(types, instance) {
            guard collecting else { return false }
            valid = false
            reportType(node, types, instance, describing: describing)
        }
        switch instance.value {
        case .object(let members):
            if node.object != nil, !evaluateObject(node, instance, members, &annotations, describing: describing) {
                guard collecting else { return false }
                valid = false
            }
        case .array(let elements):
            if node.array != nil, !evaluateArray(node, instance, elements, &annotations, describing: describing) {
                guard collecting else { return false }
                valid = false
            }
        case .string(let string):
            if let rules = node.string, !evaluateString(node, rules, instance, string, describing: describing) {
                guard collecting else { return false }
                valid = false
            }
        case .number(let text):
            if let rules = node.number, !evaluateNumber(node, rules, instance, text, describing: describing) {
                guard collecting else { return false }
                valid = false
            }
        case .null, .bool:
            break
        }
        for index in node.keywords.indices where !evaluate(node.keywords[index], node, instance, &annotations, describing: describing) {
            guard collecting else { return false }
            valid = false
        }
        if let unevaluated = node.unevaluatedProperties, case .object(let members) = instance.value {
            for (position, member) in members.enumerated() where !annotations.properties.contains(position) {
                if !evaluateMember(unevaluated, member, keyword: "unevaluatedProperties", node, describing: describing) {
                    guard collecting else { return false }
                    valid = false
                }
            }
            annotations.properties.insertAll()
        }
        if let unevaluated = node.unevaluatedItems, case .array(let elements) = instance.value {
            for (position, element) in elements.enumerated() where !annotations.items.contains(position) {
                if !evaluateItem(unevaluated, element, at: position, keyword: "unevaluatedItems", node, describing: describing) {
                    guard collecting else { return false }
                    valid = false
                }
            }
            annotations.items.insertAll()
        }
        return valid
    }

    /// Evaluates an in-place subschema (same instance location) and merges its annotations; a
    /// failed subschema's annotations are merged too while collecting, so that one error does not
    /// also make every property it covers "unevaluated".
    private mutating func evaluateInPlace(_ index: Int, _ instance: JSONNode, _ annotations: inout Annotations, describing: Int) -> Bool {
        var inner = Annotations()
        let valid = evaluate(index, instance, &inner, inherited: describing)
        if tracking && (valid || collecting) { annotations.formUnion(inner) }
        return valid
    }

    /// Evaluates a subschema without collecting violations.
    private mutating func check(_ index: Int, _ instance: JSONNode, _ annotations: inout Annotations, describing: Int) -> Bool {
        let saved = collecting
        collecting = false
        defer { collecting = saved }
        return evaluate(index, instance, &annotations, inherited: describing)
    }

    // MARK: Keywords for any type

    private mutating func evaluate(
        _ keyword: Keyword, _ node: SchemaNode, _ instance: JSONNode, _ annotations: inout Annotations, describing: Int
    ) -> Bool {
        switch keyword {
        case .ref(let target):
            return evaluateInPlace(target, instance, &annotations, describing: describing)
        case .dynamicRef(let initial, let anchor):
            var target = initial
            if let anchor {
                for resource in dynamicScope {
                    if let dynamic = program.dynamicAnchors[resource][anchor] {
                        target = dynamic
                        break
                    }
                }
            }
            return evaluateInPlace(target, instance, &annotations, describing: describing)
        case .allOf(let branches):
            var valid = true
            for branch in branches where !evaluateInPlace(branch, instance, &annotations, describing: describing) {
                guard collecting else { return false }
                valid = false
            }
            return valid
        case .anyOf(let branches):
            var passed = false
            for branch in branches {
                var inner = Annotations()
                if check(branch, instance, &inner, describing: describing) {
                    passed = true
                    guard tracking else { break }
                    annotations.formUnion(inner)
                }
            }
            if !passed && collecting {
                report(
                    "anyOf", at: instance.position, schemaPointer: node.location + "/anyOf",
                    summarize(branches, instance, describing: describing), describing: describing)
            }
            return passed
        case .oneOf(let branches):
            var passing: [Int] = []
            var passingAnnotations = Annotations()
            for branch in branches {
                var inner = Annotations()
                if check(branch, instance, &inner, describing: describing) {
                    passing.append(branch)
                    passingAnnotations = inner
                    if passing.count > 1 && !collecting { break }
                }
            }
            if passing.count == 1 {
                if tracking { annotations.formUnion(passingAnnotations) }
                return true
            }
            if collecting {
                let message: String
                if passing.isEmpty {
                    message = summarize(branches, instance, describing: describing)
                } else {
                    let names = passing.map { branchName($0, ordinal: branches.firstIndex(of: $0)! + 1) }
                    message = "\(render(instance)) matches \(passing.count) of the alternatives (\(list(names, "and"))) but must match exactly one"
                }
                report("oneOf", at: instance.position, schemaPointer: node.location + "/oneOf", message, describing: describing)
            }
            return false
        case .not(let negated):
            var inner = Annotations()
            guard check(negated, instance, &inner, describing: describing) else { return true }
            if collecting {
                report(
                    "not", at: instance.position, schemaPointer: node.location + "/not", notMessage(negated, instance),
                    describing: describing)
            }
            return false
        case .conditional(let condition, let then, let otherwise):
            var inner = Annotations()
            if check(condition, instance, &inner, describing: describing) {
                if tracking { annotations.formUnion(inner) }
                guard let then else { return true }
                return evaluateInPlace(then, instance, &annotations, describing: describing)
            }
            guard let otherwise else { return true }
            return evaluateInPlace(otherwise, instance, &annotations, describing: describing)
        case .enumeration(let allowed):
            if allowed.contains(instance) { return true }
            if collecting {
                var message = "\(render(instance)) is not one of \(list(allowed.display, "or", limit: 12))"
                if let suggestion = suggestion(for: instance.stringValue, among: allowed.display) {
                    message += "; did you mean '\(suggestion)'?"
                }
                report(
                    "enum", at: instance.position, schemaPointer: node.location + "/enum", message, describing: describing,
                    allowedValues: allowed.texts)
            }
            return false
        case .constant(let allowed):
            if allowed.contains(instance) { return true }
            if collecting {
                let expected = allowed.texts[0].hasPrefix("\"") ? "'\(allowed.display[0])'" : allowed.texts[0]
                report(
                    "const", at: instance.position, schemaPointer: node.location + "/const",
                    "expected \(expected), found \(render(instance))", describing: describing, allowedValues: allowed.texts)
            }
            return false
        }
    }

    private static func matches(_ types: TypeSet, _ instance: JSONNode) -> Bool {
        switch instance.value {
        case .null: types.contains(.null)
        case .bool: types.contains(.boolean)
        case .object: types.contains(.object)
        case .array: types.contains(.array)
        case .string: types.contains(.string)
        case .number(let text): types.contains(.number) || (types.contains(.integer) && isInteger(text))
        }
    }

    private static func isInteger(_ text: String) -> Bool {
        let hasFractionOrExponent = text.utf8.contains {
            $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
        }
        return !hasFractionOrExponent || (ExactDecimal(text)?.isInteger ?? false)
    }

    // MARK: Objects

    private mutating func evaluateObject(
        _ node: SchemaNode, _ instance: JSONNode, _ members: [JSONMember], _ annotations: inout Annotations, describing: Int
    ) -> Bool {
        guard let box = node.object else { return true }
        var valid = true
        if let maximum = box.value.maxProperties, members.count > maximum {
            let count = Self.distinctKeyCount(members)
            if count > maximum {
                guard collecting else { return false }
                valid = false
                report(
                    "maxProperties", at: instance.position, schemaPointer: node.location + "/maxProperties",
                    "expected at most \(maximum) \(maximum == 1 ? "key" : "keys"), found \(count)", describing: describing)
            }
        }
        if let minimum = box.value.minProperties, minimum > 0 {
            let count = members.count < minimum ? members.count : Self.distinctKeyCount(members)
            if count < minimum {
                guard collecting else { return false }
                valid = false
                report(
                    "minProperties", at: instance.position, schemaPointer: node.location + "/minProperties",
                    "expected at least \(minimum) \(minimum == 1 ? "key" : "keys"), found \(count)", describing: describing)
            }
        }
        let hasMemberRules =
            !box.value.properties.isEmpty || !box.value.patternProperties.isEmpty || box.value.additionalProperties != nil
            || box.value.propertyNames != nil
        var seenSlots: UInt64 = 0
        if hasMemberRules {
            // By index, and the rules through the box: copying each member, or the rules struct,
            // cost a retain and a release per array and string in them, per member.
            let patternCount = box.value.patternProperties.count
            for position in members.indices {
                var matched = false
                if let slot = box.value.properties.index(of: members[position].key) {
                    matched = true
                    let child = box.value.propertyNodes[slot]
                    if slot < 64 { seenSlots |= 1 << UInt64(slot) }
                    if tracking { annotations.properties.insert(position) }
                    if !evaluateMember(child, members[position], keyword: "properties", node, describing: describing) {
                        guard collecting else { return false }
                        valid = false
                    }
                }
                for pattern in 0..<patternCount where box.value.patternProperties[pattern].pattern.matches(members[position].key) {
                    matched = true
                    if tracking { annotations.properties.insert(position) }
                    let child = box.value.patternProperties[pattern].node
                    if !evaluateMember(child, members[position], keyword: "patternProperties", node, describing: describing) {
                        guard collecting else { return false }
                        valid = false
                    }
                }
                if !matched, let additional = box.value.additionalProperties {
                    if tracking { annotations.properties.insert(position) }
                    if !evaluateMember(additional, members[position], keyword: "additionalProperties", node, describing: describing) {
                        guard collecting else { return false }
                        valid = false
                    }
                }
                if let names = box.value.propertyNames, !evaluateName(names, members[position], node, describing: describing) {
                    guard collecting else { return false }
                    valid = false
                }
            }
        }
        for (name, slot) in zip(box.value.required, box.value.requiredSlots) {
            if slot >= 0 ? seenSlots & (1 << UInt64(slot)) != 0 : Self.hasKey(members, name) { continue }
            guard collecting else { return false }
            valid = false
            report(
                "required", at: instance.position, schemaPointer: node.location + "/required",
                "missing required key '\(name)'", describing: describing, property: name)
        }
        for (key, required) in box.value.dependentRequired where Self.hasKey(members, key) {
            for name in required where !Self.hasKey(members, name) {
                guard collecting else { return false }
                valid = false
                report(
                    "dependentRequired", at: instance.position,
                    schemaPointer: node.location + "/dependentRequired/" + JSONPointer.escape(key),
                    "missing key '\(name)', which is required when '\(key)' is present", describing: describing,
                    property: name)
            }
        }
        for (key, child) in box.value.dependentSchemas where Self.hasKey(members, key) {
            if !evaluateInPlace(child, instance, &annotations, describing: describing) {
                guard collecting else { return false }
                valid = false
            }
        }
        return valid
    }

    private static func hasKey(_ members: [JSONMember], _ key: String) -> Bool {
        members.contains { sameScalars($0.key, key) }
    }

    private static func distinctKeyCount(_ members: [JSONMember]) -> Int {
        Set(members.map { ExactString(string: $0.key) }).count
    }

    /// Evaluates one member's value against `child`. A `false` child is reported at the key.
    private mutating func evaluateMember(
        _ child: Int, _ member: JSONMember, keyword: String, _ node: SchemaNode, describing: Int
    ) -> Bool {
        let childNode = nodes[child]
        if childNode.constant == false {
            if collecting {
                var message: String
                switch keyword {
                case "properties": message = "the key '\(member.key)' is not allowed here"
                case "patternProperties": message = "the key '\(member.key)' is not allowed here (keys like it are excluded)"
                default:
                    message = "unexpected key '\(member.key)'"
                    if let known = node.object?.value.propertyOrder, let suggestion = suggestion(for: member.key, among: known) {
                        message += "; did you mean '\(suggestion)'?"
                    }
                }
                report(
                    keyword, at: member.keyPosition, schemaPointer: childNode.location, message, describing: describing,
                    property: member.key)
            }
            return false
        }
        if childNode.constant == true { return true }
        path.append(.key(member.key))
        let savedDepth = depth
        depth = 0
        defer {
            path.removeLast()
            depth = savedDepth
        }
        var inner = Annotations()
        return evaluate(child, member.value, &inner, inherited: -1)
    }

    /// Evaluates a key against `propertyNames`; a failure is one violation at the key.
    private mutating func evaluateName(_ child: Int, _ member: JSONMember, _ node: SchemaNode, describing: Int) -> Bool {
        let name = JSONNode(.string(member.key), at: member.keyPosition)
        let savedDepth = depth
        depth = 0
        defer { depth = savedDepth }
        var inner = Annotations()
        if check(child, name, &inner, describing: -1) { return true }
        if collecting {
            let reasons = violations(of: child, name, describing: -1)
            let reason = reasons.first.map { ": \($0.message)" } ?? ""
            report(
                "propertyNames", at: member.keyPosition, schemaPointer: node.location + "/propertyNames",
                "the key '\(member.key)' is not an allowed name\(reason)", describing: describing, property: member.key)
        }
        return false
    }

    // MARK: Arrays

    private mutating func evaluateArray(
        _ node: SchemaNode, _ instance: JSONNode, _ elements: [JSONNode], _ annotations: inout Annotations, describing: Int
    ) -> Bool {
        guard let box = node.array else { return true }
        var valid = true
        func plural(_ count: Int) -> String { count == 1 ? "1 item" : "\(count) items" }
        if let maximum = box.value.maxItems, elements.count > maximum {
            guard collecting else { return false }
            valid = false
            report(
                "maxItems", at: instance.position, schemaPointer: node.location + "/maxItems",
                "expected at most \(plural(maximum)), found \(elements.count)", describing: describing)
        }
        if let minimum = box.value.minItems, elements.count < minimum {
            guard collecting else { return false }
            valid = false
            report(
                "minItems", at: instance.position, schemaPointer: node.location + "/minItems",
                "expected at least \(plural(minimum)), found \(elements.count)", describing: describing)
        }
        let prefixCount = min(box.value.prefixItems.count, elements.count)
        for position in 0..<prefixCount {
            if tracking { annotations.items.insert(position) }
            if !evaluateItem(box.value.prefixItems[position], elements[position], at: position, keyword: "prefixItems", node, describing: describing)
            {
                guard collecting else { return false }
                valid = false
            }
        }
        if let items = box.value.items, elements.count > box.value.prefixItems.count {
            if tracking { annotations.items.insertAll() }
            if nodes[items].constant == false {
                guard collecting else { return false }
                valid = false
                report(
                    "items", at: instance.position, schemaPointer: nodes[items].location,
                    "expected at most \(plural(box.value.prefixItems.count)), found \(elements.count)", describing: describing)
            } else {
                for position in box.value.prefixItems.count..<elements.count {
                    if !evaluateItem(items, elements[position], at: position, keyword: "items", node, describing: describing) {
                        guard collecting else { return false }
                        valid = false
                    }
                }
            }
        }
        if let contains = box.value.contains {
            let minimum = box.value.minContains ?? 1
            var matches = 0
            for (position, element) in elements.enumerated() {
                path.append(.index(position))
                let savedDepth = depth
                depth = 0
                var inner = Annotations()
                let matched = check(contains, element, &inner, describing: -1)
                depth = savedDepth
                path.removeLast()
                if matched {
                    matches += 1
                    if tracking {
                        annotations.items.insert(position)
                    } else if box.value.maxContains == nil && matches >= minimum {
                        break
                    }
                }
            }
            let what = nodes[contains].title.map { "matching '\($0)'" } ?? "matching the 'contains' schema"
            if matches < minimum {
                guard collecting else { return false }
                valid = false
                report(
                    box.value.minContains == nil ? "contains" : "minContains", at: instance.position,
                    schemaPointer: node.location + (box.value.minContains == nil ? "/contains" : "/minContains"),
                    "expected at least \(plural(minimum)) \(what), found \(matches)", describing: describing)
            }
            if let maximum = box.value.maxContains, matches > maximum {
                guard collecting else { return false }
                valid = false
                report(
                    "maxContains", at: instance.position, schemaPointer: node.location + "/maxContains",
                    "expected at most \(plural(maximum)) \(what), found \(matches)", describing: describing)
            }
        }
        if box.value.uniqueItems && elements.count > 1 {
            var seen: [CanonicalValue: Int] = [:]
            for (position, element) in elements.enumerated() {
                let value = CanonicalValue(element)
                if let first = seen[value] {
                    guard collecting else { return false }
                    valid = false
                    path.append(.index(position))
                    report(
                        "uniqueItems", at: element.position, schemaPointer: node.location + "/uniqueItems",
                        "item \(position) is the same as item \(first); items must be unique", describing: describing)
                    path.removeLast()
                } else {
                    seen[value] = position
                }
            }
        }
        return valid
    }

    /// Evaluates one element against `child`.
    private mutating func evaluateItem(
        _ child: Int, _ element: JSONNode, at position: Int, keyword: String, _ node: SchemaNode, describing: Int
    ) -> Bool {
        let childNode = nodes[child]
        if childNode.constant == true { return true }
        path.append(.index(position))
        defer { path.removeLast() }
        if childNode.constant == false {
            if collecting {
                report(
                    keyword, at: element.position, schemaPointer: childNode.location,
                    keyword == "unevaluatedItems" ? "unexpected item at index \(position)" : "no item is allowed at index \(position)",
                    describing: describing)
            }
            return false
        }
        let savedDepth = depth
        depth = 0
        defer { depth = savedDepth }
        var inner = Annotations()
        return evaluate(child, element, &inner, inherited: -1)
    }

    // MARK: Strings and numbers

    private mutating func evaluateString(
        _ node: SchemaNode, _ box: Rules<StringRules>, _ instance: JSONNode, _ string: String, describing: Int
    ) -> Bool {
        var valid = true
        if box.value.minLength != nil || box.value.maxLength != nil {
            let bytes = string.utf8.count
            // A scalar takes one to four UTF-8 bytes: count only when the bytes don't decide.
            let needsCount =
                (box.value.minLength.map { bytes < $0 * 4 && bytes >= $0 } ?? false) || (box.value.maxLength.map { bytes > $0 } ?? false)
            let length = needsCount ? string.unicodeScalars.count : bytes
            func characters(_ count: Int) -> String { count == 1 ? "1 character" : "\(count) characters" }
            if let minimum = box.value.minLength, bytes < minimum || (needsCount && length < minimum) {
                guard collecting else { return false }
                valid = false
                let count = string.unicodeScalars.count
                report(
                    "minLength", at: instance.position, schemaPointer: node.location + "/minLength",
                    "\(render(instance)) is too short: expected at least \(characters(minimum)), found \(count)",
                    describing: describing)
            }
            if let maximum = box.value.maxLength, needsCount && length > maximum {
                guard collecting else { return false }
                valid = false
                report(
                    "maxLength", at: instance.position, schemaPointer: node.location + "/maxLength",
                    "\(render(instance)) is too long: expected at most \(characters(maximum)), found \(length)",
                    describing: describing)
            }
        }
        if let pattern = box.value.pattern, !pattern.matches(string) {
            guard collecting else { return false }
            valid = false
            report(
                "pattern", at: instance.position, schemaPointer: node.location + "/pattern",
                "\(render(instance)) does not match the pattern \(pattern.source)", describing: describing)
        }
        if let format = box.value.format, !format.accepts(string) {
            guard collecting else { return false }
            valid = false
            report(
                "format", at: instance.position, schemaPointer: node.location + "/format",
                "\(render(instance)) is not a valid \(format.rawValue): expected \(format.example)", describing: describing)
        }
        return valid
    }

    private mutating func evaluateNumber(
        _ node: SchemaNode, _ box: Rules<NumberRules>, _ instance: JSONNode, _ text: String, describing: Int
    ) -> Bool {
        guard let value = ExactDecimal(text) else { return true }
        var valid = true
        func fail(_ keyword: String, _ message: String) {
            valid = false
            report(keyword, at: instance.position, schemaPointer: node.location + "/" + keyword, message, describing: describing)
        }
        if let minimum = box.value.minimum, ExactDecimal.compare(value, minimum.value) < 0 {
            guard collecting else { return false }
            fail("minimum", "\(text) is less than the minimum \(minimum.text)")
        }
        if let minimum = box.value.exclusiveMinimum, ExactDecimal.compare(value, minimum.value) <= 0 {
            guard collecting else { return false }
            fail("exclusiveMinimum", "\(text) must be greater than \(minimum.text)")
        }
        if let maximum = box.value.maximum, ExactDecimal.compare(value, maximum.value) > 0 {
            guard collecting else { return false }
            fail("maximum", "\(text) is greater than the maximum \(maximum.text)")
        }
        if let maximum = box.value.exclusiveMaximum, ExactDecimal.compare(value, maximum.value) >= 0 {
            guard collecting else { return false }
            fail("exclusiveMaximum", "\(text) must be less than \(maximum.text)")
        }
        if let divisor = box.value.multipleOf, !value.isMultiple(of: divisor.value) {
            guard collecting else { return false }
            fail("multipleOf", "\(text) is not a multiple of \(divisor.text)")
        }
        return valid
    }

    // MARK: Reports

    private mutating func report(
        _ keyword: String, at position: SourcePosition, schemaPointer: String, _ message: String, describing: Int,
        property: String? = nil, allowedValues: [String]? = nil
    ) {
        violations.append(
            SchemaViolation(
                keyword: keyword, instancePointer: currentPointer(), instancePosition: position,
                schemaPointer: schemaPointer, message: message, property: property, allowedValues: allowedValues,
                schemaDescription: describing >= 0 ? nodes[describing].description : nil))
    }

    private func currentPointer() -> String {
        var pointer = ""
        for token in path {
            pointer += "/"
            switch token {
            case .key(let key): pointer += JSONPointer.escape(key)
            case .index(let index): pointer += String(index)
            }
        }
        return pointer
    }

    private mutating func reportType(_ node: SchemaNode, _ types: TypeSet, _ instance: JSONNode, describing: Int) {
        let expected = list(node.typeNames.map(Self.typePhrase), "or")
        report(
            "type", at: instance.position, schemaPointer: node.location + "/type",
            "expected \(expected), found \(Self.found(instance, integerExpected: types.contains(.integer)))",
            describing: describing)
    }

    private static func typePhrase(_ name: String) -> String {
        name == "null" ? "null" : article(name)
    }

    /// How an instance's type reads in "found …".
    private static func found(_ instance: JSONNode, integerExpected: Bool) -> String {
        switch instance.value {
        case .null: "null"
        case .number(let text) where integerExpected: "\(text), which is not a whole number"
        default: article(instance.typeName)
        }
    }

    /// The violations `index` reports for `instance`, collected on the side.
    private mutating func violations(of index: Int, _ instance: JSONNode, describing: Int) -> [SchemaViolation] {
        var saved: [SchemaViolation] = []
        swap(&saved, &violations)
        let savedCollecting = collecting
        collecting = true
        var inner = Annotations()
        _ = evaluate(index, instance, &inner, inherited: describing)
        collecting = savedCollecting
        swap(&saved, &violations)
        return saved
    }

    /// One line for a failed `anyOf` / `oneOf`: what types were expected when the value's type
    /// fits no alternative, otherwise the closest alternative and its first problem.
    private mutating func summarize(_ branches: [Int], _ instance: JSONNode, describing: Int) -> String {
        // When every alternative says which types it takes and none takes this one, say that.
        var allTyped = true
        var expected: [String] = []
        var anyTypeMatches = false
        for branch in branches {
            let target = nodes[resolvingReferences(branch)]
            guard let types = target.types else {
                allTyped = false
                break
            }
            if Self.matches(types, instance) { anyTypeMatches = true }
            for name in target.typeNames where !expected.contains(name) { expected.append(name) }
        }
        if allTyped && !anyTypeMatches {
            return
                "expected \(list(expected.map(Self.typePhrase), "or")), found \(Self.found(instance, integerExpected: expected.contains("integer")))"
        }

        let here = currentPointer()
        var best: (score: Int, ordinal: Int, violations: [SchemaViolation])?
        for (offset, branch) in branches.enumerated() {
            let found = violations(of: branch, instance, describing: describing)
            var score = found.count
            for violation in found {
                let relative = violation.instancePointer.dropFirst(here.count)
                let depth = relative.filter { $0 == "/" }.count
                if violation.keyword == "type" && depth == 0 { score += 1000 }
                if (violation.keyword == "const" || violation.keyword == "enum") && depth <= 1 { score += 100 }
            }
            if best == nil || score < best!.score { best = (score, offset + 1, found) }
        }
        let names = branches.enumerated().map { branchName($0.element, ordinal: $0.offset + 1) }
        var message = "\(render(instance)) matches none of the alternatives (\(list(names, "or", limit: 8)))"
        if let best, let first = best.violations.first {
            let relative = String(first.instancePointer.dropFirst(here.count))
            let location = relative.isEmpty ? "" : "at \(relative): "
            message += "; closest is \(names[best.ordinal - 1]): \(location)\(first.message)"
            if best.violations.count > 1 {
                message += " (and \(best.violations.count - 1) more \(best.violations.count == 2 ? "problem" : "problems"))"
            }
        }
        return message
    }

    /// Follows a subschema that is nothing but a `$ref` to what it names.
    private func resolvingReferences(_ index: Int) -> Int {
        var current = index
        var hops = 0
        while hops < 16, nodes[current].constant == nil, nodes[current].types == nil, nodes[current].title == nil,
            nodes[current].keywords.count == 1, case .ref(let target) = nodes[current].keywords[0]
        {
            current = target
            hops += 1
        }
        return current
    }

    /// A name for an alternative: its title, its `$defs` name, its types, or its position.
    private func branchName(_ index: Int, ordinal: Int) -> String {
        let node = nodes[resolvingReferences(index)]
        if let title = node.title { return title }
        if let name = node.name { return name }
        if !node.typeNames.isEmpty, node.keywords.isEmpty, node.object == nil, node.array == nil {
            return list(node.typeNames.map(Self.typePhrase), "or")
        }
        if !node.typeNames.isEmpty { return "\(list(node.typeNames.map(Self.typePhrase), "or")) (alternative \(ordinal))" }
        return "alternative \(ordinal)"
    }

    private func notMessage(_ index: Int, _ instance: JSONNode) -> String {
        let node = nodes[resolvingReferences(index)]
        if let title = node.title { return "\(render(instance)) must not be \(title)" }
        if let required = node.object?.value.required, !required.isEmpty, node.keywords.isEmpty, node.types == nil {
            return required.count == 1
                ? "the key '\(required[0])' is not allowed here"
                : "the keys \(list(required.map { "'\($0)'" }, "and")) must not all be present"
        }
        if node.keywords.count == 1, node.types == nil {
            switch node.keywords[0] {
            case .constant(let allowed), .enumeration(let allowed):
                return "\(render(instance)) is not allowed here"
                    + (allowed.display.count > 1 ? " (it must not be \(list(allowed.display, "or", limit: 8)))" : "")
            default: break
            }
        }
        if node.keywords.isEmpty, !node.typeNames.isEmpty, node.object == nil, node.array == nil {
            return "must not be \(list(node.typeNames.map(Self.typePhrase), "or"))"
        }
        return "\(render(instance)) matches the schema at \(node.location.isEmpty ? "the root" : node.location), which it must not"
    }

    /// A close match for a misspelled value or key: same letters in another case, or at most two
    /// edits away.
    private func suggestion(for value: String?, among candidates: [String]) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 64 else { return nil }
        let lowered = value.lowercased()
        let target = lowered.unicodeScalars.map(\.value)
        let limit = target.count <= 4 ? 1 : 2
        var best: (distance: Int, candidate: String)?
        for candidate in candidates where candidate != value && candidate.utf8.count <= 64 {
            let other = candidate.lowercased()
            if other == lowered { return candidate }  // the same letters in another case
            let scalars = other.unicodeScalars.map(\.value)
            guard abs(scalars.count - target.count) <= limit else { continue }
            let distance = Self.editDistance(target, scalars)
            if distance <= limit && distance < (best?.distance ?? Int.max) { best = (distance, candidate) }
        }
        return best?.candidate
    }

    /// Levenshtein distance.
    private static func editDistance(_ lhs: [UInt32], _ rhs: [UInt32]) -> Int {
        if lhs.isEmpty { return rhs.count }
        var previous = Array(0...rhs.count)
        var current = previous
        for (row, left) in lhs.enumerated() {
            current[0] = row + 1
            for (column, right) in rhs.enumerated() {
                current[column + 1] = min(previous[column + 1] + 1, current[column] + 1, previous[column] + (left == right ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[rhs.count]
    }
}

/// A value for a message: `'text'` for a string (shortened past 60 characters), the JSON text of
/// a number, boolean or null, and `the object` / `the array` otherwise.
func render(_ instance: JSONNode) -> String {
    switch instance.value {
    case .string(let string):
        let scalars = string.unicodeScalars
        if scalars.count <= 60 { return "'\(string)'" }
        var short = String.UnicodeScalarView()
        short.append(contentsOf: scalars.prefix(57))
        return "'\(String(short))…'"
    case .number(let text): return text
    case .bool(let value): return value ? "true" : "false"
    case .null: return "null"
    case .array: return "the array"
    case .object: return "the object"
    }
}

/// `a, b or c` (with `conjunction`), at most `limit` items then `…`.
func list(_ items: [String], _ conjunction: String, limit: Int = .max) -> String {
    if items.count > limit { return items.prefix(limit).joined(separator: ", ") + ", …" }
    switch items.count {
    case 0: return ""
    case 1: return items[0]
    default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
    }
}
