/// The member or element indices of one instance that some keyword evaluated (the annotations
/// `unevaluatedProperties` and `unevaluatedItems` read).
struct EvaluatedSet {
    private(set) var all = false
    private var words: [UInt64] = []

    mutating func insert(_ index: Int) {
        if all { return }
        let word = index >> 6
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
        words[word] |= 1 << UInt64(index & 63)
    }

    mutating func insertAll() {
        all = true
        words = []
    }

    func contains(_ index: Int) -> Bool {
        if all { return true }
        let word = index >> 6
        return word < words.count && words[word] & (1 << UInt64(index & 63)) != 0
    }

    mutating func formUnion(_ other: EvaluatedSet) {
        if all { return }
        if other.all { return insertAll() }
        if other.words.count > words.count { words.append(contentsOf: repeatElement(0, count: other.words.count - words.count)) }
        for (index, word) in other.words.enumerated() { words[index] |= word }
    }
}

/// What the keywords applied to one instance location evaluated.
struct Annotations {
    var properties = EvaluatedSet()
    var items = EvaluatedSet()

    mutating func formUnion(_ other: Annotations) {
        properties.formUnion(other.properties)
        items.formUnion(other.items)
    }
}

/// One step of the instance location being evaluated.
enum PathToken {
    case key(String)
    case index(Int)
}
