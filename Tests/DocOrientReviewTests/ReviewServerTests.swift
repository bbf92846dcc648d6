import DocOrient
import DocOrientBatch
import DocOrientBatchTestSupport
import DocOrientReview
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The review page's server over a hand-written batch: the page, a turn, and the requests it
/// refuses with nothing written. `DocOrientCLITests.ReviewPageBrowserTests` drives it from Chromium.
struct ReviewServerTests {
    static func app(_ folder: URL, token: String? = nil) throws -> some ApplicationProtocol {
        var quiet = Logger(label: "docorient")
        quiet.logLevel = .warning
        return makeReviewApplication(
            review: try Review(folder: folder.path),
            configuration: ReviewConfiguration(host: "127.0.0.1", port: 0, token: token), logger: quiet)
    }

    static let json: HTTPFields = [.contentType: "application/json"]

    static func turn(_ file: String, _ turn: String, _ version: String) -> ByteBuffer {
        ByteBuffer(string: #"{"file": "\#(file)", "turn": "\#(turn)", "version": "\#(version)"}"#)
    }

    /// Every file's bytes, by name, to show nothing was written.
    static func contents(_ folder: URL) throws -> [String: Data] {
        var all: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".jpg") {
            all[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return all
    }

    @Test func thePageListsTheFilesThatNeedALookAndATurnAnswersTheNewVersion() async throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg", "0017_blank.jpg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let version = try JournalledBatch.version(of: folder.appendingPathComponent("0000_receipt.jpg"))
        try await Self.app(folder).test(.live) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let html = String(buffer: response.body)
                #expect(html.components(separatedBy: "<article class=\"card").count - 1 == 2)
                #expect(html.contains("data-file=\"0000_receipt.jpg\"") && html.contains("undecidable"))
            }
            try await client.execute(uri: "/preview?file=0000_receipt.jpg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(Array(response.body.readableBytesView.prefix(2)) == [0xFF, 0xD8])
            }
            try await client.execute(
                uri: "/turn", method: .post, headers: Self.json, body: Self.turn("0000_receipt.jpg", "left", version)
            ) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let body = try #require(
                    try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(body["person_orientation"] as? Int == 1)
                #expect(body["decided_by"] as? String == "person")
                #expect(body["version"] as? String != version)
            }
        }
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent("0000_receipt.jpg")))
        #expect(try ImageMetadata.read(bytes).exifOrientation == 1)
    }

    /// A card without a reason to look (a file a person turned) shows none: not the reasons of
    /// the cards above it (a name a card lacks is looked up in the page, as Mustache does).
    @Test func aCardInTheRestShowsNoOtherCardsReasonToLook() async throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg", "0017_blank.jpg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let version = try JournalledBatch.version(of: folder.appendingPathComponent("0000_receipt.jpg"))
        try await Self.app(folder).test(.live) { client in
            try await client.execute(
                uri: "/turn", method: .post, headers: Self.json, body: Self.turn("0000_receipt.jpg", "keep", version)
            ) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/?all=1", method: .get) { response in
                let cards = String(buffer: response.body).components(separatedBy: "<article class=\"card").dropFirst()
                #expect(cards.count == 2)
                let rest = try #require(cards.first { $0.contains("data-file=\"0000_receipt.jpg\"") })
                #expect(!rest.contains("class=\"attention\""), "\(rest)")
                #expect(cards.filter { $0.contains("class=\"attention\"") }.count == 1)
            }
        }
    }

    @Test func hostileRequestsAreRefusedWithNothingWritten() async throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg"])
        let outside = try JournalledBatch.folder(copying: ["0003_letter.jpg"])
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("link.jpg"),
            withDestinationURL: outside.appendingPathComponent("0003_letter.jpg"))
        let before = try Self.contents(folder).merging(Self.contents(outside)) { a, _ in a }
        let version = try JournalledBatch.version(of: folder.appendingPathComponent("0000_receipt.jpg"))
        try await Self.app(folder).test(.live) { client in
            // Names outside the folder: .., absolute, through a link.
            for (name, status) in [
                ("../\(outside.lastPathComponent)/0003_letter.jpg", HTTPResponse.Status.forbidden),
                ("/etc/passwd", .forbidden), ("link.jpg", .forbidden), ("sub/../0000_receipt.jpg", .forbidden),
                ("missing.jpg", .notFound),
            ] {
                try await client.execute(
                    uri: "/turn", method: .post, headers: Self.json, body: Self.turn(name, "right", version)
                ) { response in
                    #expect(response.status == status, "\(name): \(String(buffer: response.body))")
                }
                let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
                try await client.execute(uri: "/preview?file=\(query)", method: .get) { response in
                    #expect(response.status == status, "preview of \(name)")
                }
            }
            // Bodies: too large, not JSON, JSON of the wrong shape, an unknown turn, a stale version.
            try await client.execute(
                uri: "/turn", method: .post, headers: Self.json, body: ByteBuffer(repeating: 0x7B, count: 1 << 20)
            ) { response in #expect(response.status == .contentTooLarge) }
            for body in [
                "{", "[]", #"{"file": 1}"#, #"{"file": "0000_receipt.jpg", "turn": "sideways", "version": ""}"#,
            ] {
                try await client.execute(
                    uri: "/turn", method: .post, headers: Self.json, body: ByteBuffer(string: body)
                ) {
                    response in #expect(response.status == .badRequest, "\(body)")
                }
            }
            try await client.execute(
                uri: "/turn", method: .post, headers: Self.json, body: Self.turn("0000_receipt.jpg", "right", "0")
            ) { response in #expect(response.status == .conflict) }
            // A form or plain text (what another page can send without asking), and another origin.
            try await client.execute(
                uri: "/turn", method: .post, headers: [.contentType: "text/plain"],
                body: Self.turn("0000_receipt.jpg", "right", version)
            ) { response in #expect(response.status == .unsupportedMediaType) }
            try await client.execute(
                uri: "/turn", method: .post,
                headers: [.contentType: "application/json", .origin: "http://evil.example"],
                body: Self.turn("0000_receipt.jpg", "right", version)
            ) { response in #expect(response.status == .forbidden) }
        }
        #expect(try Self.contents(folder).merging(Self.contents(outside)) { a, _ in a } == before)
        #expect(try Review(folder: folder.path).journal.entries().values.allSatisfy { $0.decidedBy == .docorient })
    }

    @Test func withATokenEveryRequestNeedsIt() async throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = "0123456789abcdef0123456789abcdef"
        let before = try Self.contents(folder)
        let version = try JournalledBatch.version(of: folder.appendingPathComponent("0000_receipt.jpg"))
        try await Self.app(folder, token: token).test(.live) { client in
            for uri in ["/", "/?token=wrong", "/preview?file=0000_receipt.jpg&token=\(token.dropLast())x"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .forbidden, "\(uri)")
                }
            }
            try await client.execute(
                uri: "/turn?token=nope", method: .post, headers: Self.json,
                body: Self.turn("0000_receipt.jpg", "right", version)
            ) { response in #expect(response.status == .forbidden) }
            #expect(try Self.contents(folder) == before)
            try await client.execute(uri: "/?token=\(token)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("data-token=\"\(token)\""))
            }
            var headers = Self.json
            headers[HTTPField.Name("X-DocOrient-Token")!] = token
            try await client.execute(
                uri: "/turn", method: .post, headers: headers, body: Self.turn("0000_receipt.jpg", "right", version)
            ) { response in #expect(response.status == .ok) }
        }
        #expect(try Self.contents(folder) != before)
    }
}
