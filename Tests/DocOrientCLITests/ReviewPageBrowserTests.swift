import DocOrientTestSupport
import Foundation
import Testing

/// `docorient review` in a real browser: a batch over generated captures, some undecidable; the
/// page lists those first; clicks and keys turn them; the files keep their pixels and carry the
/// tags clicked; a second `fix` leaves the person's decisions alone; `undo` gives the original
/// bytes back. Set DOCORIENT_SCREENSHOTS=docs/images to keep the page's screenshots there.
struct ReviewPageBrowserTests {
    /// A running `docorient review`, stopped when released.
    final class ReviewServer {
        /// What the server printed on stderr so far; read and written under `lock`.
        final class Log: @unchecked Sendable {
            private let lock = NSLock()
            private var text = ""
            func append(_ data: Data) { lock.withLock { text += String(decoding: data, as: UTF8.self) } }
            var contents: String { lock.withLock { text } }
        }

        let process = Process()
        let log = Log()
        private(set) var address = ""

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: CLITests.binary)
            process.arguments = ["review", "--port", "0", "--quiet"] + arguments
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let log = self.log
            Thread {
                while case let data = err.fileHandleForReading.availableData, !data.isEmpty {
                    log.append(data)
                }
            }.start()
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let text = log.contents
                if let start = text.range(of: "http://"), let end = text[start.lowerBound...].firstIndex(of: "\n") {
                    address = String(text[start.lowerBound..<end])
                    return
                }
                usleep(50_000)
            }
            throw BrowserError("docorient review did not start: \(log.contents)")
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    static let names = ["0000_receipt.jpg", "0003_letter.jpg", "0017_blank.jpg", "0018_photo.jpg", "0029_sign.jpg"]

    /// The EXIF orientation exiftool reads, nil for none.
    static func tag(_ url: URL) throws -> Int? {
        let out = try CLITests.run("exiftool", ["-n", "-s3", "-Orientation", url.path]).out
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// ImageMagick's signature of the decoded pixels (metadata and tags left out).
    static func pixels(_ url: URL) throws -> String {
        try CLITests.run("identify", ["-format", "%#", url.path]).out
    }

    @Test func aPersonTurnsTheUndecidableFilesInABrowserAndUndoGivesTheirBytesBack() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = dir.appendingPathComponent("captures")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for name in Self.names {
            try FileManager.default.copyItem(
                at: CLITests.samples.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        let fix = try CLITests.run(CLITests.binary, ["fix", "--json", "--jobs", "2", root.path])
        #expect(fix.status == 0, "\(fix.err)")
        var verdicts: [String: String] = [:]
        for line in fix.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = URL(fileURLWithPath: try #require(object["path"] as? String)).lastPathComponent
            verdicts[name] = object["verdict"] as? String
        }
        let undecidable = verdicts.filter { $0.value == "undecidable" }.keys.sorted()
        try #require(undecidable.count >= 2, "the blank page and the photo have no text to decide by: \(verdicts)")
        var before: [String: (bytes: Data, tag: Int?, pixels: String)] = [:]
        for name in Self.names {
            let url = root.appendingPathComponent(name)
            before[name] = (try Data(contentsOf: url), try Self.tag(url), try Self.pixels(url))
        }

        let server = try ReviewServer([root.path])
        // A name that leads to loopback from elsewhere (DNS rebinding) is refused.
        let port = try #require(URL(string: server.address)?.port)
        let rebound = try CLITests.run(
            "curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: evil.example:\(port)", server.address])
        #expect(rebound.out == "403")
        let browser = try Chromium(profile: dir.appendingPathComponent("chromium"))
        try browser.resize(width: 1280, height: 900)
        try browser.open(server.address)
        try browser.wait(for: "document.querySelectorAll('.card').length > 0")

        // The files that need a look come first, the undecidable ones among them; the rest on demand.
        let listed = try #require(
            try browser.evaluate("[...document.querySelectorAll('#attention .card')].map(c => c.dataset.file)")
                as? [String])
        #expect(Array(listed.prefix(undecidable.count)) == undecidable, "the undecidable ones first: \(listed)")
        let (first, second) = (undecidable[0], undecidable[1])

        // A click on "right" turns the first; the thumbnail is fetched again for its new version.
        let oldSource =
            try browser.evaluate("document.querySelector('.card[data-file=\"\(first)\"] img').src") as? String
        try browser.click(".card[data-file=\"\(first)\"] button[data-turn=\"right\"]")
        try browser.wait(
            for: "document.querySelector('.card[data-file=\"\(first)\"] .status').classList.contains('done')")
        let newSource =
            try browser.evaluate("document.querySelector('.card[data-file=\"\(first)\"] img').src") as? String
        #expect(newSource != oldSource, "the thumbnail shows the new version")
        // It was a landscape photo shown as stored; turned a quarter, its thumbnail stands upright.
        let image = "document.querySelector('.card[data-file=\"\(first)\"] img')"
        try browser.wait(for: "\(image).complete && \(image).naturalWidth > 0")
        #expect(try browser.evaluate("\(image).naturalHeight > \(image).naturalWidth") as? Bool == true)

        // The keys: select the second by clicking its name, then ↓ (180) and m (mirror).
        try browser.click(".card[data-file=\"\(second)\"] .file")
        try browser.press("ArrowDown")
        try browser.wait(
            for: "document.querySelector('.card[data-file=\"\(second)\"] .status').textContent.includes('orientation')")
        try browser.wait(for: "!document.querySelector('.card[data-file=\"\(second)\"] button').disabled")
        try browser.press("m")
        try browser.wait(
            for:
                "document.querySelector('.card[data-file=\"\(second)\"] .status').textContent.endsWith('orientation 4')"
        )
        // n selects the next file.
        try browser.press("n")
        #expect(try browser.evaluate("document.querySelector('.card.current').dataset.file") as? String != second)

        if let folder = ProcessInfo.processInfo.environment["DOCORIENT_SCREENSHOTS"] {
            let out = URL(fileURLWithPath: folder, relativeTo: CLITests.repoRoot)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try browser.evaluate("window.scrollTo(0, 0)")
            try browser.screenshot().write(to: out.appendingPathComponent("review-desktop.png"))
            try browser.resize(width: 390, height: 844, mobile: true)
            try browser.open(server.address)
            try browser.wait(
                for:
                    "document.querySelectorAll('.card img').length > 0 && [...document.querySelectorAll('.card img')].slice(0, 2).every(i => i.complete)"
            )
            try browser.screenshot().write(to: out.appendingPathComponent("review-phone.png"))
        }

        // Loaded again, the files a person decided no longer need a look; they are with the rest, on demand.
        try browser.open(server.address)
        let still = try #require(
            try browser.evaluate("[...document.querySelectorAll('#attention .card')].map(c => c.dataset.file)")
                as? [String])
        #expect(!still.contains(first) && !still.contains(second), "\(still)")
        try browser.click("#more")
        try browser.wait(for: "document.querySelectorAll('#rest .card.person').length == 2")

        // The files: the same pixels, the tags as clicked (1 turned right is 6; 1 turned 180 is 3, mirrored 4).
        let expected = [first: 6, second: 4]
        for (name, tag) in expected {
            let url = root.appendingPathComponent(name)
            let was = try #require(before[name])
            #expect(was.tag == nil || was.tag == 1, "\(name) was shown as stored")
            #expect(try Self.tag(url) == tag, "\(name)")
            #expect(try Self.pixels(url) == was.pixels, "\(name): the pixels are unchanged")
        }

        // A second fix leaves the person's decisions alone.
        let again = try CLITests.run(CLITests.binary, ["fix", "--json", root.path])
        #expect(again.status == 0, "\(again.err)")
        #expect(!again.lines.contains { $0.contains(first) || $0.contains(second) })
        for (name, tag) in expected { #expect(try Self.tag(root.appendingPathComponent(name)) == tag) }

        // The report counts them apart and exports them as labelled examples.
        let report = try CLITests.run(CLITests.binary, ["report", root.path])
        #expect(report.lines.first?.hasSuffix("2 decided by a person") == true, "\(report.out)")
        let labels = try CLITests.run(CLITests.binary, ["report", "--labels", root.path])
        let examples = try labels.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            Dictionary(
                uniqueKeysWithValues: examples.map {
                    ($0["relative_path"] as? String ?? "", $0["orientation"] as? Int ?? 0)
                })
                == expected)
        #expect(examples.allSatisfy { $0["decided_by"] as? String == "person" })

        // Undo gives every file its original bytes back, those a person turned included.
        let undo = try CLITests.run(CLITests.binary, ["undo", root.path])
        #expect(undo.status == 0, "\(undo.out)\(undo.err)")
        for name in Self.names {
            let original = try Data(contentsOf: CLITests.samples.appendingPathComponent(name))
            #expect(try Data(contentsOf: root.appendingPathComponent(name)) == original, "\(name)")
        }
    }
}
