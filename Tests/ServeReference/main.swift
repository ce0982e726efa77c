import Hummingbird

// `make bench-serve` (Benchmarks/serve.py) measures this next to `wallet-orders serve`.

// serve-reference PORT: GET /hello answers "hello" on 127.0.0.1:PORT until SIGTERM.
let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8090
let router = Router()
router.get("hello") { _, _ in "hello" }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
