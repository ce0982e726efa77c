import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("The Add to Apple Wallet page shows the order's preview (live HTTP)", .dedicatedThreads)
struct LandingPagePreviewTests {
    @Test(
        "The link's page is the preview: the order's line items and barcode under the button, the viewer's appearance, no findings; Accept-Language picks the words"
    )
    func preview() async throws {
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        try await service.run { client in
            let answer = try await client.execute(uri: MerchantAPITests.one + "/link", method: .get, headers: ServiceUnderTest.merchant)
            let path = try #require(answer.json["path"] as? String)
            let page = try await client.execute(uri: path, method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.init("Content-Security-Policy")!] == LandingPageHostileTests.policy)
            let html = String(buffer: page.body)
            #expect(html.contains(#"<html lang="en" class="auto">"#))
            #expect(html.contains(#"href="\#(path)/order">Add to Apple Wallet</a>"#))
            #expect(html.contains("Trailhead 28L Daypack"))
            #expect(html.contains(#"<svg class="barcode qr""#))
            #expect(html.contains("data:image/png;base64,"))
            #expect(!html.contains("class=\"card findings-list\"") && !html.contains("class=\"findings-none\"") && !html.contains("class=\"finding "))
            #expect(!html.contains("<script"))

            let french = try await client.execute(uri: path, method: .get, headers: [.acceptLanguage: "fr-FR, fr;q=0.9, en;q=0.5"])
            let frenchHTML = String(buffer: french.body)
            #expect(frenchHTML.contains(#"<html lang="fr-FR""#))
            #expect(frenchHTML.contains("Gérer la commande"))
            #expect(frenchHTML.contains(#"href="\#(path)/order">Ajouter à Apple Wallet</a>"#))
            #expect(frenchHTML.contains("192,93"))
        }
    }
}
