import CWalletOrdersOpenSSL
package import Foundation

/// A set of trust anchors that verifies certificate chains (an owned `X509_STORE *`).
///
/// Built once and reused for every archive. `@unchecked Sendable`: the store is never
/// modified after ``init(anchors:)``, and OpenSSL locks the store's internal lookups, so
/// concurrent `X509_verify_cert` calls with separate contexts are safe.
package final class X509TrustStore: @unchecked Sendable {
    private let ref: OpaquePointer
    /// The anchors, in the order given.
    package let anchors: [X509Certificate]

    /// Builds a store from trust anchors.
    ///
    /// The corresponding C functions are `X509_STORE_new` and `X509_STORE_add_cert`.
    package init(anchors: [X509Certificate]) throws(OpenSSLError) {
        OpenSSLError.clearQueue()
        guard let store = X509_STORE_new() else { throw OpenSSLError.drain(function: "X509_STORE_new") }
        ref = store
        self.anchors = anchors
        for anchor in anchors where X509_STORE_add_cert(store, anchor.ref) != 1 {
            // A duplicate anchor is harmless; anything else is reported.
            let error = OpenSSLError.drain(function: "X509_STORE_add_cert", context: "Adding trust anchor \(anchor.subject)")
            if !error.entries.contains(where: { $0.reason.contains("already in hash table") }) { throw error }
        }
    }

    deinit { X509_STORE_free(ref) }

    /// The outcome of a chain verification.
    package struct ChainResult: Sendable {
        /// Whether a chain to an anchor was built and every check passed.
        package var isValid: Bool
        /// The chain OpenSSL built, leaf first (partial when verification failed).
        package var chain: [X509Certificate]
        /// OpenSSL's `X509_V_ERR_*` code (0 when valid).
        package var errorCode: Int32
        /// OpenSSL's text for the code, such as `certificate has expired`.
        package var errorText: String
        /// The depth in the chain of the certificate the error concerns (0 = leaf).
        package var errorDepth: Int32
        /// The certificate the error concerns.
        package var errorCertificate: X509Certificate?

        /// Whether the error is about validity dates (expired or not yet valid).
        package var isValidityError: Bool {
            [X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID].contains(errorCode)
        }

        /// Whether no chain to a trust anchor could be built.
        package var isUntrustedError: Bool {
            [
                X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
                X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
                X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
            ].contains(errorCode)
        }
    }

    /// Verifies `leaf` up to one of the anchors, using `intermediates` as untrusted helpers,
    /// with every certificate checked for validity at `time`. No purpose (EKU) is checked:
    /// Apple's order-signing EKU isn't S/MIME.
    ///
    /// The corresponding C functions are `X509_STORE_CTX_init`, `X509_STORE_CTX_set_time`,
    /// `X509_verify_cert` and `X509_STORE_CTX_get1_chain`.
    package func verify(_ leaf: X509Certificate, intermediates: [X509Certificate], at time: Date) -> ChainResult {
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        guard let context = X509_STORE_CTX_new(), let untrusted = CWalletOrdersOpenSSL_sk_X509_new_null() else {
            fatalError("X509_STORE_CTX_new failed: out of memory")
        }
        defer {
            X509_STORE_CTX_free(context)
            CWalletOrdersOpenSSL_sk_X509_free(untrusted)
        }
        for certificate in intermediates { _ = CWalletOrdersOpenSSL_sk_X509_push(untrusted, certificate.ref) }
        guard X509_STORE_CTX_init(context, ref, leaf.ref, untrusted) == 1 else {
            return ChainResult(
                isValid: false, chain: [], errorCode: -1, errorText: "X509_STORE_CTX_init failed", errorDepth: 0,
                errorCertificate: nil)
        }
        X509_STORE_CTX_set_time(context, 0, time_t(time.timeIntervalSince1970.rounded(.down)))
        let verified = withExtendedLifetime(intermediates) { X509_verify_cert(context) == 1 }
        var chain: [X509Certificate] = []
        if let built = X509_STORE_CTX_get1_chain(context) {
            chain = (0..<CWalletOrdersOpenSSL_sk_X509_num(built)).compactMap { index in
                CWalletOrdersOpenSSL_sk_X509_value(built, index).map { X509Certificate(retaining: $0) }
            }
            CWalletOrdersOpenSSL_sk_X509_pop_free(built)
        }
        let code = X509_STORE_CTX_get_error(context)
        return ChainResult(
            isValid: verified,
            chain: chain,
            errorCode: verified ? 0 : code,
            errorText: verified ? "ok" : String(cString: X509_verify_cert_error_string(Int(code))),
            errorDepth: X509_STORE_CTX_get_error_depth(context),
            errorCertificate: X509_STORE_CTX_get_current_cert(context).map { X509Certificate(retaining: $0) }
        )
    }
}
