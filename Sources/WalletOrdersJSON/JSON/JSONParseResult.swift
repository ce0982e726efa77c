/// What ``JSONParser/parse(_:maxDepth:)`` found: the document, if there is one, and every problem.
package struct JSONParseResult: Sendable {
    /// The top-level value; `nil` exactly when ``problems`` holds a fatal problem.
    package var root: JSONNode?
    /// The problems in the order they were found; at most one is fatal, and it is the last.
    package var problems: [JSONProblem]

    /// Creates a result.
    package init(root: JSONNode?, problems: [JSONProblem]) {
        self.root = root
        self.problems = problems
    }
}
