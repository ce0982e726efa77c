import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersTestSupport

/// A chain verification set-up and what OpenSSL must say about it.
enum TrustScenario: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case validNow = "valid now, with the intermediate"
    case expired = "a day after the leaf's notAfter"
    case notYetValid = "a day before the leaf's notBefore"
    case emptyStore = "with an empty trust store"
    case missingIntermediate = "without the intermediate"
    case otherRoot = "with an unrelated self-signed anchor"

    var testDescription: String { rawValue }

    struct Setup {
        var anchors: [X509Certificate]
        var intermediates: [X509Certificate]
        var time: Date
    }

    func setup(_ chain: TestChain) -> Setup {
        switch self {
        case .validNow: Setup(anchors: [chain.root], intermediates: [chain.intermediate], time: TestChain.now)
        case .expired:
            Setup(
                anchors: [chain.root], intermediates: [chain.intermediate],
                time: TestChain.leafNotAfter.addingTimeInterval(86_400))
        case .notYetValid:
            Setup(
                anchors: [chain.root], intermediates: [chain.intermediate],
                time: TestChain.leafNotBefore.addingTimeInterval(-86_400))
        case .emptyStore: Setup(anchors: [], intermediates: [chain.intermediate], time: TestChain.now)
        case .missingIntermediate: Setup(anchors: [chain.root], intermediates: [], time: TestChain.now)
        case .otherRoot: Setup(anchors: [chain.stranger], intermediates: [chain.intermediate], time: TestChain.now)
        }
    }

    var isValid: Bool { self == .validNow }
    var isValidityError: Bool { self == .expired || self == .notYetValid }
    var isUntrustedError: Bool { [.emptyStore, .missingIntermediate, .otherRoot].contains(self) }

    var errorText: String {
        switch self {
        case .validNow: "ok"
        case .expired: "certificate has expired"
        case .notYetValid: "certificate is not yet valid"
        case .emptyStore, .otherRoot: "unable to get local issuer certificate"
        case .missingIntermediate: "unable to get local issuer certificate"
        }
    }
}

@Suite struct X509TrustStoreTests {
    @Test("verify classifies the chain", arguments: TrustScenario.allCases)
    func classify(_ scenario: TrustScenario) throws {
        let chain = try TestChain.get()
        let setup = scenario.setup(chain)
        let store = try X509TrustStore(anchors: setup.anchors)
        let result = store.verify(chain.leaf, intermediates: setup.intermediates, at: setup.time)
        #expect(result.isValid == scenario.isValid)
        #expect(result.isValidityError == scenario.isValidityError)
        #expect(result.isUntrustedError == scenario.isUntrustedError)
        #expect(result.errorText == scenario.errorText)
        #expect((result.errorCode == 0) == scenario.isValid)
        if scenario.isValidityError {
            #expect(result.errorDepth == 0)
            #expect(result.errorCertificate == chain.leaf)
        }
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("A valid chain is returned leaf first, up to the anchor")
    func builtChain() throws {
        let chain = try TestChain.get()
        let store = try X509TrustStore(anchors: [chain.root])
        let result = store.verify(chain.leaf, intermediates: [chain.intermediate], at: TestChain.now)
        #expect(result.isValid)
        #expect(result.chain == [chain.leaf, chain.intermediate, chain.root])
        #expect(store.anchors == [chain.root])
    }

    @Test("The same store verifies repeatedly and a duplicate anchor is harmless")
    func reuseAndDuplicates() throws {
        let chain = try TestChain.get()
        let store = try X509TrustStore(anchors: [chain.root, chain.root, chain.stranger])
        #expect(store.anchors == [chain.root, chain.root, chain.stranger])
        for _ in 0..<3 {
            #expect(store.verify(chain.leaf, intermediates: [chain.intermediate], at: TestChain.now).isValid)
        }
        #expect(store.verify(chain.stranger, intermediates: [], at: TestChain.now).isValid)
        #expect(openSSLErrorQueueIsEmpty())
    }
}
