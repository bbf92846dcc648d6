import DocOrient
import DocOrientServer
import DocOrientTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-ID")!
}

enum ServerFixtures {
    static let samples = Repository.samples
    static let fixer = Result { Fixer(resolver: try Resolver(configuration: ResolverConfiguration())) }
    static func app(
        maxBodyBytes: Int = 32 << 20, maxInFlight: Int = 8, maxUploads: Int = 8
    ) throws
        -> some ApplicationProtocol
    {
        var quiet = Logger(label: "docorient")
        quiet.logLevel = .warning  // no access log in the test output
        return makeApplication(
            fixer: try fixer.get(),
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: 0, maxBodyBytes: maxBodyBytes, maxInFlight: maxInFlight,
                maxUploads: maxUploads),
            logger: quiet)
    }
}

struct ServerTests {
    @Test func anImageGetsTheSameRecordAsTheLibrary() async throws {
        let url = ServerFixtures.samples.appendingPathComponent("0003_letter.jpg")
        let bytes = try Data(contentsOf: url)
        let expected = try await ServerFixtures.fixer.get().fix(bytes, options: FixOptions(dryRun: true)).record
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: bytes)) {
                response in
                #expect(response.status == .ok)
                let json =
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                #expect(json?["verdict"] as? String == expected.verdict.rawValue)
                #expect(json?["detected_orientation"] as? Int == expected.detectedOrientation)
                #expect(json?["exif_orientation"] as? Int == expected.exifOrientation)
            }
        }
    }

    @Test func bakeReturnsTheFixedImageAndTheRecordInAHeader() async throws {
        let bytes = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg"))
        let expected = try await ServerFixtures.fixer.get().fix(bytes, options: FixOptions(bake: true))
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/v1/fix?mode=bake", method: .post, body: ByteBuffer(bytes: bytes)) {
                response in
                #expect(response.status == .ok)
                #expect(Array(response.body.readableBytesView) == expected.bytes)
                let header = response.headers[HTTPField.Name("X-DocOrient-Record")!]
                #expect(header?.contains("\"verdict\":\"\(expected.record.verdict.rawValue)\"") == true)
            }
        }
    }

    /// A HEIC (made here by libheif's heif-enc from the letter sample: same stored pixels, EXIF 6
    /// copied, no irot) is fixed through the service as through the library: its irot/imir are
    /// rewritten so that it displays as the text reads; baking it is refused (lossy).
    @Test func aHEICIsFixedByItsContainerRotationAndNotBaked() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-heic-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let heic = directory.appendingPathComponent("letter.heic")
        let encoder = Process()
        encoder.executableURL = URL(fileURLWithPath: "/usr/bin/heif-enc")
        encoder.arguments = [
            "-q", "60", "-o", heic.path, ServerFixtures.samples.appendingPathComponent("0003_letter.jpg").path,
        ]
        encoder.standardOutput = FileHandle.nullDevice
        try encoder.run()
        encoder.waitUntilExit()
        #expect(encoder.terminationStatus == 0)
        let bytes = try Data(contentsOf: heic)
        let expected = try await ServerFixtures.fixer.get().fix(bytes)
        #expect(expected.record.detectedOrientation == 8 && expected.record.action == .tagRewritten)
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/v1/fix?mode=tag", method: .post, body: ByteBuffer(bytes: bytes)) {
                response in
                #expect(response.status == .ok)
                let fixed = Array(response.body.readableBytesView)
                #expect(fixed == expected.bytes)
                let metadata = try ImageMetadata.read(fixed)
                #expect(metadata.format == .heif && metadata.heifDisplayedOrientation == .rotate270)
            }
            try await client.execute(uri: "/v1/fix?mode=bake", method: .post, body: ByteBuffer(bytes: bytes)) {
                response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("re-encoding"))
            }
        }
    }

    /// One page showing `jpeg` (stored `width` x `height`) as img2pdf does, without /Rotate.
    static func scannedPDF(jpeg: [UInt8], width: Int, height: Int) -> [UInt8] {
        let content = Array("q \(width) 0 0 \(height) 0 0 cm /Im0 Do Q".utf8)
        let page: String =
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents 4 0 R "
            + "/Resources << /XObject << /Im0 5 0 R >> >> >>"
        let image: String =
            "<< /Type /XObject /Subtype /Image /Width \(width) /Height \(height) /ColorSpace /DeviceRGB "
            + "/BitsPerComponent 8 /Filter /DCTDecode /Length \(jpeg.count) >>\nstream\n"
        let objects: [[UInt8]] = [
            Array("<< /Type /Catalog /Pages 2 0 R >>".utf8),
            Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
            Array(page.utf8),
            Array("<< /Length \(content.count) >>\nstream\n".utf8) + content + Array("\nendstream".utf8),
            Array(image.utf8) + jpeg + Array("\nendstream".utf8),
        ]
        var out = Array("%PDF-1.7\n".utf8)
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
        }
        let xref = out.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { table += String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n" }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return out + Array(table.utf8)
    }

    /// A scanned PDF gets its pages' records from /v1/orientation and comes back from /v1/fix as
    /// a PDF whose sideways page has a new /Rotate.
    @Test func aScannedPDFGetsARecordPerPageAndComesBackTurned() async throws {
        let jpeg = try [UInt8](Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0007_invoice.jpg")))
        let pdf = Self.scannedPDF(jpeg: jpeg, width: 1512, height: 2016)
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: pdf)) {
                response in
                #expect(response.status == .ok)
                let json =
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                let pages = json?["pages"] as? [[String: Any]]
                #expect(pages?.count == 1)
                #expect(pages?.first?["page"] as? Int == 1)
                #expect(pages?.first?["exif_orientation"] as? Int == 1)
                #expect(pages?.first?["detected_orientation"] as? Int == 8)
            }
            try await client.execute(uri: "/v1/fix?mode=tag", method: .post, body: ByteBuffer(bytes: pdf)) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/pdf")
                let fixed = Array(response.body.readableBytesView)
                let rotate = Array("/Rotate 270".utf8)
                #expect(fixed.starts(with: Array("%PDF-".utf8)))
                #expect((0...(fixed.count - rotate.count)).contains { Array(fixed[$0..<$0 + rotate.count]) == rotate })
            }
        }
    }

    /// A multi-page TIFF (made by ImageMagick and tiffcp) gets its pages' records and comes back
    /// as a TIFF whose sideways page has a new Orientation tag.
    @Test func aMultiPageTIFFGetsARecordPerPageAndComesBackTurned() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-tiff-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pages = [
            try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 1, side: 1200, in: directory),
            try ScannedTIFF.page("0012_pdfpage.jpg", .lzw, tag: 1, side: 1200, in: directory),
        ]
        let path = directory.appendingPathComponent("scan.tif").path
        try ScannedTIFF.join(pages, to: path)
        let tiff = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: tiff)) {
                response in
                #expect(response.status == .ok)
                let json =
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                let records = json?["pages"] as? [[String: Any]]
                #expect(records?.map { $0["page"] as? Int } == [1, 2])
                #expect(records?.map { $0["detected_orientation"] as? Int } == [8, 1])
            }
            try await client.execute(uri: "/v1/fix?mode=tag", method: .post, body: ByteBuffer(bytes: tiff)) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/tiff")
                let fixed = directory.appendingPathComponent("fixed.tif").path
                try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: fixed))
                #expect(try ScannedTIFF.orientations(fixed) == [8, 1])
                #expect(try ScannedTIFF.entriesButOrientation(fixed) == ScannedTIFF.entriesButOrientation(path))
            }
        }
    }

    @Test func nonImageIs415AndBrokenJPEGIs422WithTheErrorCode() async throws {
        let jpeg = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg"))
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(
                uri: "/v1/orientation", method: .post, body: ByteBuffer(string: "GIF89a not an image")
            ) { response in
                #expect(response.status == .unsupportedMediaType)
                #expect(
                    String(decoding: response.body.readableBytesView, as: UTF8.self).contains(
                        "\"error\":\"unsupported_format\""))
            }
            try await client.execute(
                uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: jpeg.prefix(600))
            ) { response in
                #expect(response.status == .unprocessableContent)
                #expect(
                    String(decoding: response.body.readableBytesView, as: UTF8.self).contains("\"error\":\"malformed\"")
                )
            }
            try await client.execute(uri: "/v1/fix?mode=rotate", method: .post, body: ByteBuffer(bytes: jpeg)) {
                response in
                #expect(response.status == .badRequest)
            }
        }
    }

    /// The code and the C library call underneath reach the answer; an upload has no file to name.
    @Test func aJPEGCutInItsScanIs422WithTurboJPEGsCallAndWords() async throws {
        let jpeg = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg"))
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(
                uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: jpeg.prefix(jpeg.count * 3 / 4))
            ) { response in
                #expect(response.status == .unprocessableContent)
                let answer = try #require(
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                #expect(answer["error"] as? String == "malformed")
                let cause = try #require(answer["cause"] as? [String: Any], "\(answer)")
                #expect(cause["call"] as? String == "tjDecompress2")
                #expect(cause["errno"] is NSNull)
                let said = try #require(cause["message"] as? String)
                #expect(answer["message"] as? String == "JPEG data is corrupt: \(said)")
            }
            // Without a cause underneath, the answer has none.
            try await client.execute(
                uri: "/v1/orientation", method: .post, body: ByteBuffer(string: "GIF89a not an image")
            ) { response in
                let answer = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
                #expect((answer as? [String: Any])?.keys.sorted() == ["error", "message"])
            }
        }
    }

    /// The OpenAPI document's `Error` enum lists every code the library has, and the service's own.
    @Test func theDocumentsErrorCodesAreTheLibrarysAndTheServices() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let error = (schemas?["Error"] as? [String: Any])?["properties"] as? [String: Any]
        let codes = (error?["error"] as? [String: Any])?["enum"] as? [String]
        #expect(codes == DocOrientError.Code.all.map(\.rawValue) + ["request_timeout", "client_closed_request"])
    }

    @Test func anOversizeBodyIs413AndTheServerKeepsServing() async throws {
        // Half again over the limit, so that the client has sent all of it before the server
        // answers: with the whole JPEG, many times the limit, the server's early 413 and close could land while
        // the client was still writing, and the client failed with "I/O on closed channel" on a
        // loaded machine (the server's behaviour, which this test is about, was right either way).
        let jpeg = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg")).prefix(1500)
        try await ServerFixtures.app(maxBodyBytes: 1000).test(.live) { client in
            try await client.execute(uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                #expect(response.status == .contentTooLarge)
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func aFullServiceAnswers503WithRetryAfterAndStillAnswersHealth() async throws {
        // No room at all: deterministic, and the same path a saturated service takes.
        let jpeg = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg"))
        try await ServerFixtures.app(maxInFlight: 0).test(.live) { client in
            try await client.execute(uri: "/v1/fix?mode=tag", method: .post, body: ByteBuffer(bytes: jpeg)) {
                response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func metricsCountEachRequestByEndpointAndStatus() async throws {
        let jpeg = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg"))
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/orientation", method: .post, body: ByteBuffer(string: "not an image")) {
                response in
                #expect(response.status == .unsupportedMediaType)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                let text = String(decoding: response.body.readableBytesView, as: UTF8.self)
                #expect(text.contains(#"docorient_http_requests_total{endpoint="/v1/orientation",status="200"} 1"#))
                #expect(text.contains(#"docorient_http_requests_total{endpoint="/v1/orientation",status="415"} 1"#))
                #expect(
                    text.contains(
                        #"docorient_http_request_duration_seconds_count{endpoint="/v1/orientation",status="200"} 1"#))
                // Refusals are there from the start, at zero.
                #expect(text.contains(#"docorient_http_requests_total{endpoint="/v1/fix",status="503"} 0"#))
                #expect(text.contains("docorient_http_requests_in_flight 0"))
                #expect(text.contains("docorient_http_requests_queued 0"))
                #expect(text.contains("docorient_http_uploads_in_progress 0"))
                #expect(text.contains(#"docorient_http_requests_total{endpoint="/v1/orientation",status="408"} 0"#))
                // Every metric says what it counts, once.
                for name in [
                    "docorient_http_requests_total", "docorient_http_request_duration_seconds",
                    "docorient_http_requests_in_flight", "docorient_http_requests_queued",
                    "docorient_http_uploads_in_progress",
                ] {
                    #expect(text.components(separatedBy: "# HELP \(name) ").count == 2, "one HELP line for \(name)")
                }
            }
        }
    }

    @Test func eachApplicationCountsOnlyItsOwnRequests() async throws {
        // The other tests run at the same time in this process; a shared (global) registry would
        // show their requests too.
        let jpeg = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg"))
        try await ServerFixtures.app(maxInFlight: 0).test(.live) { client in
            try await client.execute(uri: "/v1/fix", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                #expect(response.status == .serviceUnavailable)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(decoding: response.body.readableBytesView, as: UTF8.self)
                #expect(text.contains(#"docorient_http_requests_total{endpoint="/v1/fix",status="503"} 1"#))
                #expect(!text.contains(#"status="200""#), "this application answered no request with 200")
            }
        }
    }

    @Test func uploadsPastTheLimitGet429AndNot503() async throws {
        let jpeg = try Data(contentsOf: ServerFixtures.samples.appendingPathComponent("0003_letter.jpg"))
        try await ServerFixtures.app(maxUploads: 0).test(.live) { client in
            try await client.execute(uri: "/v1/orientation", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "1")
            }
        }
    }

    @Test func aBodyDeclaredLargerThanTheLimitIs413AndClosesTheConnection() async throws {
        try await ServerFixtures.app(maxBodyBytes: 1000).test(.live) { client in
            try await client.execute(
                uri: "/v1/fix", method: .post, headers: [.contentLength: "5000"],
                body: ByteBuffer(repeating: 0, count: 5000)
            ) { response in
                #expect(response.status == .contentTooLarge)
                #expect(String(buffer: response.body).contains("\"error\":\"limit_exceeded\""))
            }
        }
    }

    @Test func theClientsRequestIDIsReturnedAndOneIsMadeOtherwise() async throws {
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get, headers: [.requestID: "lb-7f3a"]) { response in
                #expect(response.headers[.requestID] == "lb-7f3a")
            }
            try await client.execute(uri: "/v1/fix?mode=rotate", method: .post, body: ByteBuffer(string: "x")) {
                response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.requestID]?.count == 16, "made here for an error too")
            }
            // An id that would garble a log line is replaced.
            try await client.execute(uri: "/healthz", method: .get, headers: [.requestID: "a b"]) { response in
                #expect(response.headers[.requestID] != "a b")
            }
        }
    }

    @Test func aRoutesPathAskedWithAnotherMethodIs405WithAllow() async throws {
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/v1/orientation", method: .get) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "POST")
            }
            try await client.execute(uri: "/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func theEmbeddedOpenAPIDocumentIsTheFileAsItIs() throws {
        let file = Repository.url("API/openapi.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(OpenAPIDocument.json + "\n" == text, "run python3 API/embed.py")
    }

    @Test func theOpenAPIDocumentIsValidJSONNamingEveryRoute() async throws {
        try await ServerFixtures.app().test(.live) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                let json =
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                let paths = json?["paths"] as? [String: [String: Any]] ?? [:]
                for route in OpenAPIDocument.routes {
                    let parts = route.split(separator: " ")
                    #expect(paths[String(parts[1])]?[parts[0].lowercased()] != nil, "\(route) missing")
                }
            }
        }
    }
}
