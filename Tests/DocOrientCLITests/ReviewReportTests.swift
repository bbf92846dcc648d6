import Foundation
import Testing

/// `docorient report` after a real batch over the committed samples: every file whose display
/// changed is listed, grouped, with the command that gives it its original bytes back.
struct ReviewReportTests {
    /// Each file's displayed orientation (`inspect`'s effective orientation, 1 when untagged).
    static func displays(_ paths: [String]) throws -> [String: Int] {
        let out = try CLITests.run(CLITests.binary, ["inspect", "--json"] + paths)
        var result: [String: Int] = [:]
        for line in out.lines {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(object["path"] as? String)
            result[URL(fileURLWithPath: path).lastPathComponent] = object["effective_orientation"] as? Int ?? 1
        }
        return result
    }

    @Test func theReportListsEveryChangedFileAndItsUndoCommandRestoresTheOldDisplay() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = dir.appendingPathComponent("receipts")
        try FileManager.default.copyItem(at: CLITests.samples, to: root)
        let images = try CLITests.sampleFiles().map {
            root.appendingPathComponent(URL(fileURLWithPath: $0).lastPathComponent).path
        }
        let before = try Self.displays(images)

        let fix = try CLITests.run(CLITests.binary, ["fix", "--json", "--jobs", "2", root.path])
        #expect(fix.status == 0, "\(fix.err)")
        let after = try Self.displays(images)
        let changed = Set(before.keys.filter { before[$0] != after[$0] })
        #expect(changed.count >= 8, "the samples hold wrong and missing tags")

        let report = try CLITests.run(CLITests.binary, ["report", "--json", root.path])
        #expect(report.status == 0, "\(report.err)")
        var groups: [String: String] = [:]
        var undo: [String: String] = [:]
        for line in report.lines {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = URL(fileURLWithPath: try #require(object["path"] as? String)).lastPathComponent
            groups[name] = try #require(object["group"] as? String)
            undo[name] = object["undo_command"] as? String
        }
        // Every file whose display changed, tag rewritten or tag added, is in the changed group.
        #expect(Set(groups.filter { $0.value == "changed" }.keys) == changed)
        // Every undecidable file is there to look at.
        for line in fix.lines {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard object["verdict"] as? String == "undecidable" else { continue }
            let name = URL(fileURLWithPath: try #require(object["path"] as? String)).lastPathComponent
            #expect(groups[name] == "needs_a_look", "\(name)")
        }

        // The HTML page has one row per listed file, carrying its group.
        let page = dir.appendingPathComponent("review.html").path
        #expect(try CLITests.run(CLITests.binary, ["report", "--html", page, root.path]).status == 0)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.components(separatedBy: "<tr class=\"row ").count - 1 == groups.count)
        for group in ["changed", "needs_a_look"] {
            #expect(
                html.components(separatedBy: "data-group=\"\(group)\"").count - 1
                    == groups.values.filter { $0 == group }.count)
        }

        // A real browser opens the page with filters in its address; the page's script hides
        // every row outside them. Chromium is installed by Scripts/bootstrap.sh.
        let chromium = try #require(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "chromium is not installed: run Scripts/bootstrap.sh")
        let headless = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.path)/chromium"]
        let dom = try CLITests.run(chromium, headless + ["--dump-dom", "file://\(page)#groups=changed&below=0.999"])
        #expect(dom.status == 0, "\(dom.err.suffix(500))")
        let rows = dom.out.components(separatedBy: "<tr class=\"row ").dropFirst()
        #expect(rows.count == groups.count, "one row per listed file in the browser's DOM too")
        let visible = rows.filter { !$0.prefix(while: { $0 != ">" }).contains("display: none") }
        let expected = rows.filter {
            let head = $0.prefix(while: { $0 != ">" })
            guard head.contains("data-group=\"changed\""), let c = head.range(of: "data-confidence=\"") else {
                return false
            }
            return Double(head[c.upperBound...].prefix(while: { $0 != "\"" }))! < 0.999
        }
        #expect(visible.count == expected.count, "the filters show the changed files below 0.999")
        #expect(visible.count < rows.count, "and hide the rest")
        #expect(dom.out.contains("id=\"shown\">\(expected.count)<"), "the page counts what it shows")
        let shot = dir.appendingPathComponent("review.png").path
        let screenshot = try CLITests.run(
            chromium, headless + ["--window-size=1200,900", "--screenshot=\(shot)", "file://\(page)"])
        #expect(screenshot.status == 0, "\(screenshot.err.suffix(500))")
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.count > 10_000 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a screenshot of the page")

        // Each undo command, run by a shell, gives the file the display it had before the fix.
        let binDir = URL(fileURLWithPath: CLITests.binary).deletingLastPathComponent().path
        for name in changed.sorted() {
            let command = try #require(undo[name], "\(name) has no undo command")
            let shell = try CLITests.run("/bin/sh", ["-c", "PATH='\(binDir)':\"$PATH\" \(command)"])
            #expect(shell.status == 0, "\(command): \(shell.err)")
        }
        let undone = try Self.displays(images)
        for name in changed.sorted() {
            #expect(undone[name] == before[name], "\(name)")
            let original = try Data(contentsOf: CLITests.samples.appendingPathComponent(name))
            #expect(try Data(contentsOf: root.appendingPathComponent(name)) == original, "\(name): the original bytes")
        }
    }
}
