import DocOrientTestSupport
import Foundation
import Testing

/// `docorient review` in a real browser: a batch over generated captures, some undecidable, and a
/// PDF (img2pdf) and a two-page TIFF (ImageMagick, tiffcp) of undecidable pages; the page lists
/// those first, a page of a file a card of its own; clicks and keys turn them, and the header's
/// counts follow; the images keep their pixels and carry the tags clicked, the PDF page its
/// /Rotate (qpdf) and the TIFF page its own tag (tiffdump), every stream and entry else as it was;
/// a second `fix` leaves the person's decisions alone; `undo` gives the original bytes back. Set
/// DOCORIENT_SCREENSHOTS=docs/images to keep the page's screenshots there.
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
        // A blank page and a photo, neither with text to decide by: as a PDF and as a two-page TIFF.
        let pdf = root.appendingPathComponent("scan.pdf")
        try ScannedPDF.make(["0017_blank.jpg", "0018_photo.jpg"], to: pdf.path)
        let tiff = root.appendingPathComponent("fax.tif")
        let tiffPages = try ["0017_blank.jpg", "0018_photo.jpg"].map {
            try ScannedTIFF.page($0, .lzw, tag: 1, side: 800, in: dir)
        }
        try ScannedTIFF.join(tiffPages, to: tiff.path)
        let (pdfBefore, tiffBefore) = (try Data(contentsOf: pdf), try Data(contentsOf: tiff))
        let fix = try CLITests.run(CLITests.binary, ["fix", "--json", "--jobs", "2", root.path])
        #expect(fix.status == 0, "\(fix.err)")
        var verdicts: [String: String] = [:]
        var pageVerdicts: [String: [String]] = [:]
        for line in fix.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = URL(fileURLWithPath: try #require(object["path"] as? String)).lastPathComponent
            // A file of pages prints a line a page.
            if object["page"] is Int {
                pageVerdicts[name, default: []].append(object["verdict"] as? String ?? "")
            } else {
                verdicts[name] = object["verdict"] as? String
            }
        }
        try #require(
            pageVerdicts["scan.pdf"] == ["undecidable", "undecidable"]
                && pageVerdicts["fax.tif"] == ["undecidable", "undecidable"], "\(pageVerdicts)")
        #expect(try Data(contentsOf: pdf) == pdfBefore && Data(contentsOf: tiff) == tiffBefore, "fix left them alone")
        let pdfPages = try ScannedPDF.pages(pdf.path)
        let tiffEntries = try ScannedTIFF.entriesButOrientation(tiff.path)
        let undecidable = verdicts.filter { $0.value == "undecidable" && Self.names.contains($0.key) }.keys.sorted()
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

        // A click on "right" on the PDF's page 2 (a landscape photo shown as stored) turns that
        // page; its thumbnail stands upright, and the header's counts follow without a reload.
        func card(_ file: String, page: Int) -> String { ".card[data-file=\"\(file)\"][data-page=\"\(page)\"]" }
        let waiting = try #require(
            try browser.evaluate("document.getElementById('attention-count').textContent") as? String)
        let summary = try browser.evaluate("document.getElementById('summary').textContent") as? String
        try browser.click("\(card("scan.pdf", page: 2)) button[data-turn=\"right\"]")
        try browser.wait(
            for: "document.querySelector('\(card("scan.pdf", page: 2)) .status').classList.contains('done')")
        let pageImage = "document.querySelector('\(card("scan.pdf", page: 2)) img')"
        try browser.wait(
            for: "\(pageImage).complete && \(pageImage).naturalWidth > 0 && \(pageImage).src.includes('page=2')")
        try browser.wait(for: "\(pageImage).naturalHeight > \(pageImage).naturalWidth")
        #expect(
            try browser.evaluate("document.getElementById('attention-count').textContent") as? String
                == String((Int(waiting) ?? 0) - 1))
        let summaryNow = try browser.evaluate("document.getElementById('summary').textContent") as? String
        #expect(summaryNow != summary && summaryNow?.hasSuffix("decided by a person") == true, "\(summaryNow ?? "")")
        // Every card of the PDF now names its new version; the other page still turns.
        #expect(
            try browser.evaluate(
                "document.querySelector('\(card("scan.pdf", page: 1))').dataset.version === "
                    + "document.querySelector('\(card("scan.pdf", page: 2))').dataset.version"
            ) as? Bool == true)
        // The TIFF's page 2: "right" sets that page's own tag.
        try browser.click("\(card("fax.tif", page: 2)) button[data-turn=\"right\"]")
        try browser.wait(
            for: "document.querySelector('\(card("fax.tif", page: 2)) .status').classList.contains('done')")
        // Every card shows a thumbnail: PNG, TIFF and PDF pages included.
        #expect(
            try browser.evaluate(
                "[...document.querySelectorAll('#attention .card')].every(c => c.querySelector('.thumb img'))") as? Bool
                == true)

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
                    "document.querySelectorAll('.card img').length > 0 && [...document.querySelectorAll('.card "
                    + "img')].slice(0, 2).every(i => i.complete)"
            )
            try browser.screenshot().write(to: out.appendingPathComponent("review-phone.png"))
        }

        // Loaded again, the files a person decided no longer need a look; they are with the rest, on demand.
        try browser.open(server.address)
        let still = try #require(
            try browser.evaluate("[...document.querySelectorAll('#attention .card')].map(c => c.dataset.file)")
                as? [String])
        #expect(!still.contains(first) && !still.contains(second), "\(still)")
        let stillPages = try #require(
            try browser.evaluate(
                "[...document.querySelectorAll('#attention .card[data-page]')].map(c => c.dataset.file + ' ' + "
                    + "c.dataset.page)"
            ) as? [String])
        #expect(stillPages == ["fax.tif 1", "scan.pdf 1"], "the pages no one turned still need a look")
        try browser.click("#more")
        try browser.wait(for: "document.querySelectorAll('#rest .card.person').length == 4")

        // The files: the same pixels, the tags as clicked (1 turned right is 6; 1 turned 180 is 3, mirrored 4).
        let expected = [first: 6, second: 4]
        for (name, tag) in expected {
            let url = root.appendingPathComponent(name)
            let was = try #require(before[name])
            #expect(was.tag == nil || was.tag == 1, "\(name) was shown as stored")
            #expect(try Self.tag(url) == tag, "\(name)")
            #expect(try Self.pixels(url) == was.pixels, "\(name): the pixels are unchanged")
        }

        // The PDF: page 2's /Rotate 90, page 1 as it was, every stream's bytes as they were.
        let pdfNow = try ScannedPDF.pages(pdf.path)
        #expect(pdfNow.map(\.rotate) == [nil, 90])
        let streamsAsTheyWere = pdfNow.map(\.streams) == pdfPages.map(\.streams)
        #expect(streamsAsTheyWere, "every content and image stream keeps its bytes")
        // The TIFF: page 2's own tag (tiffdump), every other entry as it was.
        #expect(try ScannedTIFF.orientations(tiff.path) == [1, 6])
        #expect(try ScannedTIFF.entriesButOrientation(tiff.path) == tiffEntries)

        // A second fix leaves the person's decisions alone, the pages' included.
        let turnedFiles = [first, second, "scan.pdf", "fax.tif"]
        let (pdfTurned, tiffTurned) = (try Data(contentsOf: pdf), try Data(contentsOf: tiff))
        let again = try CLITests.run(CLITests.binary, ["fix", "--json", root.path])
        #expect(again.status == 0, "\(again.err)")
        #expect(!again.lines.contains { line in turnedFiles.contains { line.contains($0) } }, "\(again.out)")
        for (name, tag) in expected { #expect(try Self.tag(root.appendingPathComponent(name)) == tag) }
        #expect(try Data(contentsOf: pdf) == pdfTurned && Data(contentsOf: tiff) == tiffTurned)

        // The report counts them apart and exports them as labelled examples, a page's with its number.
        let report = try CLITests.run(CLITests.binary, ["report", root.path])
        #expect(report.lines.first?.hasSuffix("4 decided by a person") == true, "\(report.out)")
        let labels = try CLITests.run(CLITests.binary, ["report", "--labels", root.path])
        let examples = try labels.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            Dictionary(
                uniqueKeysWithValues: examples.map {
                    (
                        ($0["relative_path"] as? String ?? "") + (($0["page"] as? Int).map { " page \($0)" } ?? ""),
                        $0["orientation"] as? Int ?? 0
                    )
                })
                == expected.merging(["scan.pdf page 2": 6, "fax.tif page 2": 6]) { $1 })
        #expect(examples.allSatisfy { $0["decided_by"] as? String == "person" })

        // Undo gives every file its original bytes back, those a person turned included.
        let undo = try CLITests.run(CLITests.binary, ["undo", root.path])
        #expect(undo.status == 0, "\(undo.out)\(undo.err)")
        for name in Self.names {
            let original = try Data(contentsOf: CLITests.samples.appendingPathComponent(name))
            #expect(try Data(contentsOf: root.appendingPathComponent(name)) == original, "\(name)")
        }
        #expect(try Data(contentsOf: pdf) == pdfBefore, "the PDF's original bytes")
        #expect(try Data(contentsOf: tiff) == tiffBefore, "the TIFF's original bytes")
    }
}
