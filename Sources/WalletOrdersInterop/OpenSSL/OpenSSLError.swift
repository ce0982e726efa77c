import CWalletOrdersOpenSSL

/// A failed libcrypto call, with everything OpenSSL's thread-local error queue held at that moment.
///
/// Created by ``drain(function:context:)`` right at the failing call site, so a stale entry
/// from an earlier call can't be blamed on this one (callers clear the queue first with
/// ``clearQueue()``).
package struct OpenSSLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One entry of OpenSSL's error queue.
    package struct Entry: Sendable, Hashable {
        /// The packed error code (`ERR_get_error_all`).
        package var code: UInt
        /// OpenSSL's library name for the code, such as `PEM routines`.
        package var library: String
        /// OpenSSL's reason text, such as `bad decrypt`.
        package var reason: String
        /// The C function that pushed the entry, when OpenSSL recorded it.
        package var function: String
    }

    /// The libcrypto function we called that failed.
    package var function: String
    /// What we were doing, in words, when the call failed.
    package var context: String
    /// The drained queue, oldest first.
    package var entries: [Entry]

    package init(function: String, context: String, entries: [Entry] = []) {
        self.function = function
        self.context = context
        self.entries = entries
    }

    /// Drains OpenSSL's error queue into an error value.
    ///
    /// The corresponding C function is `ERR_get_error_all`.
    package static func drain(function: String, context: String = "") -> OpenSSLError {
        var entries: [Entry] = []
        while true {
            var functionName: UnsafePointer<CChar>? = nil
            let code = ERR_get_error_all(nil, nil, &functionName, nil, nil)
            if code == 0 { break }
            let library = ERR_lib_error_string(code).map { String(cString: $0) } ?? "unknown library"
            let reason = ERR_reason_error_string(code).map { String(cString: $0) } ?? "reason \(ERR_GET_REASON(code))"
            entries.append(
                Entry(code: code, library: library, reason: reason, function: functionName.map { String(cString: $0) } ?? "")
            )
        }
        return OpenSSLError(function: function, context: context, entries: entries)
    }

    /// Empties the current thread's error queue before a sequence of calls.
    ///
    /// The corresponding C function is `ERR_clear_error`.
    package static func clearQueue() {
        ERR_clear_error()
    }

    /// The reasons OpenSSL gave, joined, or `nil` when the queue was empty.
    package var reasons: String? {
        entries.isEmpty ? nil : entries.map(\.reason).joined(separator: "; ")
    }

    /// Whether the failure means a passphrase or MAC check failed (wrong password).
    package var isWrongPassphrase: Bool {
        entries.contains { entry in
            ["bad decrypt", "mac verify failure", "bad password read", "problems getting password"].contains(entry.reason)
        }
    }

    /// Whether OpenSSL said an algorithm is unsupported (for example RC2 without the legacy provider).
    package var isUnsupportedAlgorithm: Bool {
        entries.contains { $0.reason.contains("unsupported") || $0.reason.contains("fetch failed") }
    }

    package var description: String {
        var text = context.isEmpty ? "\(function) failed" : "\(context) (\(function) failed)"
        if let reasons { text += ": \(reasons)" }
        return text
    }
}
