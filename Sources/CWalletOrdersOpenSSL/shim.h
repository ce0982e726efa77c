#ifndef C_WALLET_ORDERS_OPENSSL_SHIM_H
#define C_WALLET_ORDERS_OPENSSL_SHIM_H

// OpenSSL 3 (libcrypto only): CMS signing and verification, X.509 parsing, building and
// chain verification, private keys (PEM, DER, PKCS #12), SHA-256.
//
// Function-like macros (`sk_*`, `BIO_get_mem_data`, `OPENSSL_free`) don't import into Swift,
// so each one we need gets a `static inline` wrapper here, prefixed with the module name.

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// MARK: - STACK_OF(X509)

static inline STACK_OF(X509) *CWalletOrdersOpenSSL_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int CWalletOrdersOpenSSL_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *CWalletOrdersOpenSSL_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}
/// Pushes without taking a reference: the stack borrows `cert` (free the stack with `sk_X509_free`).
static inline int CWalletOrdersOpenSSL_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void CWalletOrdersOpenSSL_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
/// Frees the stack and every certificate in it (for stacks that own their elements, e.g. `CMS_get1_certs`).
static inline void CWalletOrdersOpenSSL_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

// MARK: - STACK_OF(CMS_SignerInfo)

static inline int CWalletOrdersOpenSSL_sk_CMS_SignerInfo_num(const STACK_OF(CMS_SignerInfo) *stack) {
    return sk_CMS_SignerInfo_num(stack);
}
static inline CMS_SignerInfo *CWalletOrdersOpenSSL_sk_CMS_SignerInfo_value(const STACK_OF(CMS_SignerInfo) *stack, int index) {
    return sk_CMS_SignerInfo_value(stack, index);
}

// MARK: - BIO and memory

/// `BIO_get_mem_data` is a macro over `BIO_ctrl`.
static inline long CWalletOrdersOpenSSL_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
/// `OPENSSL_free` is a macro that passes `__FILE__`/`__LINE__`.
static inline void CWalletOrdersOpenSSL_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

// MARK: - X.509 name entries

/// `X509_get_notBefore`/`X509_get_notAfter` are macros in OpenSSL 3.
static inline const ASN1_TIME *CWalletOrdersOpenSSL_X509_get0_notBefore(const X509 *cert) { return X509_get0_notBefore(cert); }
static inline const ASN1_TIME *CWalletOrdersOpenSSL_X509_get0_notAfter(const X509 *cert) { return X509_get0_notAfter(cert); }

#endif
