import ArgumentParser
import DocOrient
import DocOrientServer
import Foundation

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answer orientation requests over HTTP.",
        discussion: """
            Serves POST /v1/orientation (image bytes in, the fix --json record out), POST \
            /v1/fix?mode=tag|bake (the fixed image out, the record in the X-DocOrient-Record \
            header), GET /healthz, GET /openapi.json and GET /metrics (Prometheus). Bodies over \
            --max-body-mb get 413, bytes that are no JPEG, PNG, TIFF or HEIF 415, broken images 422; past \
            --max-in-flight image requests at once, 503 with Retry-After. The work of a client that \
            disconnects stops. SIGTERM or Ctrl-C stops accepting and lets the requests in flight \
            finish, then exits 0. The service keeps no state: run identical replicas behind any \
            HTTP load balancer.

            Examples:
              docorient serve
              docorient serve --host 0.0.0.0 --port 8080 --max-in-flight 16
              curl --data-binary @scan.jpg localhost:8080/v1/orientation
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port, printed when listening).")
    var port = 8080

    @Option(help: ArgumentHelp("Largest request body, in megabytes.", valueName: "MB"))
    var maxBodyMb = 32

    @Option(help: ArgumentHelp("Image requests handled at once; more get 503.", valueName: "N"))
    var maxInFlight = 4 * ProcessInfo.processInfo.activeProcessorCount

    @Option(help: ArgumentHelp("Tesseract languages joined by '+'.", valueName: "LANGS"))
    var lang = "eng"

    @Option(help: ArgumentHelp("Directory with the <lang>.traineddata models.", valueName: "DIR"))
    var tessdata: String?

    @OptionGroup(title: "Work budget (per request)")
    var budget: BudgetOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0-65535, got \(port)") }
        guard maxBodyMb >= 1 else { throw ValidationError("--max-body-mb must be at least 1") }
        guard maxInFlight >= 1 else { throw ValidationError("--max-in-flight must be at least 1") }
    }

    func run() async throws {
        let resolver: Resolver
        do {
            resolver = try Resolver(
                configuration: ResolverConfiguration(tessdata: tessdata, languages: lang, budget: budget.budget))
        } catch let error as DocOrientError {
            printError("docorient: \(error)" + (error.code == .missingModel ? " (here: --tessdata DIR)" : ""))
            throw ExitCode(1)
        }
        let configuration = ServerConfiguration(
            host: host, port: port, maxBodyBytes: maxBodyMb << 20, budget: budget.budget, maxInFlight: maxInFlight)
        let host = self.host
        let app = makeApplication(fixer: Fixer(resolver: resolver), configuration: configuration) { port in
            printError("docorient: listening on http://\(host):\(port)")
        }
        try await app.runService()
    }
}
