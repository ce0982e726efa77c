import ArgumentParser

/// `wallet-orders`: build, sign, open and verify Apple Wallet order archives.
@main
package struct WalletOrdersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-orders",
        abstract: "Build, sign, inspect and verify Apple Wallet order archives (.order).",
        discussion: """
            Exit codes: 0 success, 1 findings or failure, 64 usage error. \
            Colors are used only on a terminal, and never when NO_COLOR is set.

            Try it without an Apple account:
              wallet-orders demo
              wallet-orders dev-certs --order-type-id Samples/shipped-ecommerce \\
                  --team-id ABCDE12345 --out certs
              wallet-orders build Samples/shipped-ecommerce --out order.order \\
                  --cert certs/order-type.pem --key certs/order-type.key.pem \\
                  --wwdr certs/wwdr-intermediate.pem
              wallet-orders verify order.order --trust-root certs/root-ca.pem
              wallet-orders store save order.order --trust-root certs/root-ca.pem
            """,
        version: VersionInformation.text,
        subcommands: [
            InitCommand.self, BuildCommand.self, ValidateCommand.self, VerifyCommand.self, InspectCommand.self, RulesCommand.self,
            StoreCommand.self, ServeCommand.self, CheckServiceCommand.self, DoctorCommand.self, PreviewCommand.self, DevCertsCommand.self,
            DemoCommand.self, BundleCommand.self,
        ]
    )
}
