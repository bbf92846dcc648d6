import Foundation
import HTTPTypes
import Hummingbird
import NIOHTTP1
import Prometheus
import Synchronization

/// The service's metrics, kept in one Prometheus registry per application.
///
/// Made on the registry itself, never through swift-metrics' `MetricsSystem`: the global factory
/// can be bootstrapped once per process, and a process (a test run, or a program serving twice)
/// may build many applications. The registry's own types also carry the `# HELP` line a
/// dashboard shows beside each metric, which swift-metrics' API has no place for.
final class ServiceMetrics: Sendable {
    /// The status recorded for a request whose client went away before its answer (nginx's
    /// "client closed request"); no response reaches the client.
    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

    /// OCR of a large photo can take several seconds on a busy machine: the buckets reach well past.
    static let durationBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]

    /// Each metric's name and help text (docs/service.md, "Metrics"); computed, as the descriptor type is
    /// not `Sendable`.
    enum Name {
        static var requests: MetricNameDescriptor {
            named(
                "docorient_http_requests_total",
                "Requests answered, by endpoint (the route, or \"unmatched\") and HTTP status.")
        }
        static var duration: MetricNameDescriptor {
            named(
                "docorient_http_request_duration_seconds",
                "Time from a request's arrival to its answer, by endpoint and HTTP status.")
        }
        static var inFlight: MetricNameDescriptor {
            named(
                "docorient_http_requests_in_flight",
                "Image requests admitted to the OCR engines (queued or being decided) and not yet answered.")
        }
        static var uploads: MetricNameDescriptor {
            named("docorient_http_uploads_in_progress", "Image request bodies being received.")
        }
        static var queued: MetricNameDescriptor {
            named("docorient_http_requests_queued", "Admitted image requests waiting for an OCR engine.")
        }

        /// The whole Prometheus name as given (no namespace or unit parts to join).
        private static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
        }
    }

    let registry: PrometheusCollectorRegistry
    private let inFlight: Gauge
    private let queued: Gauge
    private let uploads: Gauge
    private let series = Mutex<[Series.Key: Series]>([:])

    private struct Series: Sendable {
        struct Key: Hashable { var endpoint: String, status: Int }
        let requests: Counter
        let duration: DurationHistogram
    }

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        inFlight = registry.makeGauge(descriptor: Name.inFlight)
        queued = registry.makeGauge(descriptor: Name.queued)
        uploads = registry.makeGauge(descriptor: Name.uploads)
        // The refusals a dashboard alerts on exist from the start, at 0, rather than appearing
        // with the first one.
        for endpoint in ["/v1/orientation", "/v1/fix"] {
            for status in [
                HTTPResponse.Status.serviceUnavailable, .tooManyRequests, .requestTimeout, .contentTooLarge,
                .unsupportedMediaType, .unprocessableContent,
            ] {
                _ = self.series(endpoint: endpoint, status: status)
            }
        }
    }

    /// Counts one answered request and its duration, by endpoint (the route's pattern, or
    /// "unmatched") and status (so that instant refusals do not blur the time of real work).
    func record(endpoint: String, status: HTTPResponse.Status, duration: Duration) {
        let s = series(endpoint: endpoint, status: status)
        s.requests.increment()
        s.duration.record(duration)
    }

    /// The Prometheus text exposition of every metric, with the gauges set to `inFlight`,
    /// `queued` and `uploads` first (read at scrape time, so they are exact then).
    func exposition(inFlight: Int, queued: Int, uploads: Int) -> [UInt8] {
        self.inFlight.set(Int64(inFlight))
        self.queued.set(Int64(queued))
        self.uploads.set(Int64(uploads))
        return registry.emitToBuffer()
    }

    private func series(endpoint: String, status: HTTPResponse.Status) -> Series {
        let key = Series.Key(endpoint: endpoint, status: status.code)
        return series.withLock { all in
            if let s = all[key] { return s }
            let labels = [("endpoint", endpoint), ("status", String(status.code))]
            let s = Series(
                requests: registry.makeCounter(descriptor: Name.requests, labels: labels),
                duration: registry.makeDurationHistogram(
                    descriptor: Name.duration, labels: labels, buckets: Self.durationBuckets))
            all[key] = s
            return s
        }
    }
}

/// Times and counts every request through the router, including those a handler refuses.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.record(endpoint: endpoint(context), status: response.status, duration: .now - start)
            return response
        } catch {
            let status: HTTPResponse.Status
            switch error {
            case let error as any HTTPResponseError: status = error.status
            // Hummingbird answers a request it cannot parse (a bad chunk in the body) with 400.
            case is HTTPParserError: status = .badRequest
            case is CancellationError: status = ServiceMetrics.clientClosedRequest
            default: status = .internalServerError
            }
            metrics.record(endpoint: endpoint(context), status: status, duration: .now - start)
            throw error
        }
    }

    private func endpoint(_ context: Context) -> String {
        // The route pattern, never the raw path: one series per route, whatever clients ask for.
        context.endpointPath ?? "unmatched"
    }
}
