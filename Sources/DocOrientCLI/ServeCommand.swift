import ArgumentParser
import DocOrient
import DocOrientCommandLine
import DocOrientServer
import Foundation
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answer orientation requests over HTTP.",
        discussion: """
            Serves POST /v1/orientation (image bytes in, the fix --json record out), POST \
            /v1/fix?mode=tag|bake (the fixed image out, the record in the X-DocOrient-Record \
            header), GET /healthz, GET /openapi.json and GET /metrics (Prometheus). Bodies over \
            --max-body-mb get 413, bytes that are no JPEG, PNG, TIFF or HEIF 415, broken images 422; \
            past --max-uploads bodies being received at once, 429; past --max-in-flight image \
            requests at the OCR engines, 503 with Retry-After. Headers slower than \
            --header-timeout or bodies slower than --body-min-rate get 408 and the connection \
            closes; idle keep-alive connections close after --idle-timeout. The work of a client \
            that disconnects stops. SIGTERM or Ctrl-C stops accepting, answers the requests whose \
            body has arrived, cuts uploads still arriving after --shutdown-grace, then exits 0. \
            One access-log line per request on stderr (--log-format json for JSON). The service \
            keeps no state: run identical replicas behind any HTTP load balancer.

            Examples:
              docorient serve
              docorient serve --host 0.0.0.0 --port 8080 --max-in-flight 16 --log-format json
              curl --data-binary @scan.jpg localhost:8080/v1/orientation
            """)

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port, printed when listening).")
    var port = 8080

    @Option(help: ArgumentHelp("Largest request body, in megabytes.", valueName: "MB"))
    var maxBodyMb = 32

    @Option(
        help: ArgumentHelp(
            "Image requests at the OCR engines at once (queued or decided); more get 503.", valueName: "N"))
    var maxInFlight = 4 * ProcessInfo.processInfo.activeProcessorCount

    @Option(help: ArgumentHelp("Request bodies received at once; more get 429.", valueName: "N"))
    var maxUploads = 64

    @Option(help: ArgumentHelp("Connections open at once; more wait to be accepted.", valueName: "N"))
    var maxConnections = 1000

    @Option(help: ArgumentHelp("Seconds from a request's first byte to the end of its headers.", valueName: "S"))
    var headerTimeout = 10.0

    @Option(help: ArgumentHelp("Least body rate in bytes per second over each --body-rate-window.", valueName: "B"))
    var bodyMinRate = 2048

    @Option(help: ArgumentHelp("Seconds over which --body-min-rate is measured.", valueName: "S"))
    var bodyRateWindow = 10.0

    @Option(help: ArgumentHelp("Seconds an idle keep-alive connection stays open.", valueName: "S"))
    var idleTimeout = 75.0

    @Option(help: ArgumentHelp("Seconds after SIGTERM before uploads still arriving are cut.", valueName: "S"))
    var shutdownGrace = 20.0

    @Option(help: "Access log format: text or json (one object per line on stderr).")
    var logFormat = LogFormat.text

    @Flag(help: "No access log.")
    var quiet = false

    @OptionGroup var resolving: ResolverOptions

    @OptionGroup(title: "Work budget (per request)")
    var budget: BudgetOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0-65535, got \(port)") }
        guard maxBodyMb >= 1 else { throw ValidationError("--max-body-mb must be at least 1") }
        guard maxInFlight >= 1 else { throw ValidationError("--max-in-flight must be at least 1") }
        guard maxUploads >= 1 else { throw ValidationError("--max-uploads must be at least 1") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard bodyMinRate >= 0 else { throw ValidationError("--body-min-rate must be 0 or more") }
        for (name, seconds) in [
            ("--header-timeout", headerTimeout), ("--body-rate-window", bodyRateWindow),
            ("--idle-timeout", idleTimeout), ("--shutdown-grace", shutdownGrace),
        ] where !(seconds > 0 && seconds <= 86_400) {
            throw ValidationError("\(name) takes seconds above 0 and at most 86400, got \(seconds)")
        }
    }

    func run() async throws {
        let resolver = try resolving.resolver(budget: budget.budget)
        let format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text: StreamLogHandler.standardError(label: label)
            case .json: JSONLogHandler(label: label)
            }
        }
        var logger = Logger(label: "docorient")
        logger.logLevel = quiet ? .warning : .info
        let configuration = ServerConfiguration(
            host: host, port: port, maxBodyBytes: maxBodyMb << 20, budget: budget.budget, maxInFlight: maxInFlight,
            maxUploads: maxUploads, maxConnections: maxConnections, headerTimeout: .seconds(headerTimeout),
            bodyMinimumBytesPerSecond: bodyMinRate, bodyRateWindow: .seconds(bodyRateWindow),
            idleTimeout: .seconds(idleTimeout), shutdownGrace: .seconds(shutdownGrace))
        let host = self.host
        let app = makeApplication(fixer: Fixer(resolver: resolver), configuration: configuration, logger: logger) {
            port in
            printError("docorient: listening on http://\(host):\(port)")
        }
        try await app.runService()
    }
}
