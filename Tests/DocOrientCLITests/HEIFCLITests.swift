import Foundation
import Testing

/// End-to-end on a HEIC made by libheif's heif-enc from the letter sample (EXIF 6, text 8):
/// inspect, tag, fix and bake as the built `docorient` runs them, checked by heif-info and exiftool.
struct HEIFCLITests {
    /// The letter sample as HEIC in a fresh folder: heif-enc keeps its EXIF 6 and writes no irot.
    static func letterHEIC() throws -> (dir: URL, path: String) {
        let dir = try CLITests.temporaryDirectory()
        let path = dir.appendingPathComponent("letter.heic").path
        let made = try CLITests.run(
            "heif-enc", ["-q", "80", "-o", path, CLITests.samples.appendingPathComponent("0003_letter.jpg").path])
        #expect(made.status == 0, "\(made.err)")
        return (dir, path)
    }

    @Test func inspectTagAndBakeOnAHEIC() throws {
        let (dir, path) = try Self.letterHEIC()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inspect = try CLITests.docorient("inspect", path)
        #expect(inspect.status == 0)
        #expect(
            inspect.out.contains(
                "HEIF 1600x1200 (brand heic), irot none, imir none, EXIF 6 (rotate 90 cw) (informational), displays "
                    + "as 1 (upright)"
            ), "\(inspect.out)")

        let tag = try CLITests.docorient("tag", "7", path)
        #expect(tag.status == 0, "\(tag.err)")
        let after = try CLITests.docorient("inspect", path)
        #expect(
            after.out.contains(
                "irot 1 (90 ccw), imir 1 (left-right), EXIF 1 (upright) (informational), displays as 7 (transverse)"),
            "\(after.out)")
        let info = try CLITests.run("heif-info", [path])
        #expect(info.status == 0 && info.out.contains("1200x1600"), "heif-info shows the turned size: \(info.out)")
        let exif = try CLITests.run("exiftool", ["-n", "-s3", "-Orientation", path])
        #expect(exif.out.trimmingCharacters(in: .whitespacesAndNewlines) == "1")

        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let bake = try CLITests.docorient("bake", path)
        #expect(bake.status == 1)
        #expect(bake.err.contains("cannot be baked without re-encoding"), "\(bake.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "a refused bake leaves the file alone")
    }

    @Test func fixSetsTheContainerOrientationTheTextCallsFor() throws {
        let (dir, path) = try Self.letterHEIC()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fix = try CLITests.docorient("fix", "--json", path)
        #expect(fix.status == 0, "\(fix.err)")
        let line = try #require(fix.lines.first)
        let record = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(record["exif_orientation"] as? Int == 1, "what a HEIF viewer showed: no irot")
        #expect(record["detected_orientation"] as? Int == 8)
        #expect(record["action"] as? String == "tag_rewritten")
        let inspect = try CLITests.docorient("inspect", "--json", path)
        let inspectLine = try #require(inspect.lines.first)
        let m = try #require(JSONSerialization.jsonObject(with: Data(inspectLine.utf8)) as? [String: Any])
        #expect(
            m["effective_orientation"] as? Int == 8 && m["heif_rotation"] as? Int == 1
                && m["exif_orientation"] as? Int == 1)
        let again = try CLITests.docorient("fix", "--json", path)
        #expect(again.out.contains("\"action\":\"none\""), "a fixed file is left alone: \(again.out)")
    }

    /// A folder walk takes .heic files; the review page shows them before and after (previews
    /// decoded by libheif); undo gives the original bytes back from the kept original.
    @Test func aBatchOverAFolderFixesReviewsAndUndoesAHEIC() throws {
        let (dir, path) = try Self.letterHEIC()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let fix = try CLITests.docorient("fix", "--json", "--jobs", "1", dir.path)
        #expect(fix.status == 0, "\(fix.err)")
        #expect(
            fix.lines.count == 1 && fix.out.contains("letter.heic") && fix.out.contains("\"action\":\"tag_rewritten\""),
            "\(fix.out)")
        let page = dir.appendingPathComponent("review.html").path
        #expect(try CLITests.docorient("report", "--html", page, dir.path).status == 0)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(
            html.components(separatedBy: "src=\"data:image/jpeg;base64,").count - 1 == 2,
            "before and after previews of the HEIC")
        let journal = dir.appendingPathComponent(".docorient.sqlite").path
        let undo = try CLITests.docorient("undo", journal)
        #expect(undo.status == 0, "\(undo.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original, "undo gives the original bytes back")
    }
}
