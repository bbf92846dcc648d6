import DocOrientTestSupport
import Foundation
import Testing

/// End-to-end: the built `docorient` binary on real files, asserting output and exit codes.
struct CLITests {
    static let repoRoot = Repository.root
    static let samples = Repository.samples

    static var binary: String { BuiltProgram.path("docorient") }

    typealias Output = BuiltProgram.Output

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        try BuiltProgram.run(executable, arguments)
    }

    static func docorient(_ arguments: String...) throws -> Output { try run(binary, arguments) }

    static func sampleFiles() throws -> [String] { try BuiltProgram.sampleFiles() }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docorient-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func inspectAgreesWithExiftoolOnEverySample() throws {
        let files = try Self.sampleFiles()
        #expect(files.count >= 10)
        let result = try Self.run(Self.binary, ["inspect", "--json"] + files)
        #expect(result.status == 0, "\(result.err)")
        let witness = try Self.run("exiftool", ["-n", "-j", "-Orientation", "-ImageWidth", "-ImageHeight"] + files)
        let expected = try #require(JSONSerialization.jsonObject(with: Data(witness.out.utf8)) as? [[String: Any]])
        #expect(result.lines.count == files.count)
        for (line, truth) in zip(result.lines, expected) {
            let record = try json(line)
            for key in [
                "path", "format", "width", "height", "exif_orientation", "xmp_orientation", "thumbnail_orientation",
                "error",
            ] {
                #expect(record.keys.contains(key), "key \(key) missing")
            }
            #expect(record["error"] is NSNull)
            #expect(record["exif_orientation"] as? Int == truth["Orientation"] as? Int, "\(record["path"]!)")
            #expect(record["width"] as? Int == truth["ImageWidth"] as? Int)
            #expect(record["height"] as? Int == truth["ImageHeight"] as? Int)
        }
    }

    @Test func unsupportedAndMissingFilesFailOnlyThemselves() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gif = dir.appendingPathComponent("x.gif").path
        try Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8).write(to: URL(fileURLWithPath: gif))
        let good = try Self.sampleFiles()[0]
        let result = try Self.docorient("inspect", "--json", gif, dir.appendingPathComponent("gone.jpg").path, good)
        #expect(result.status == 1)
        #expect(result.lines.count == 3)
        #expect(
            try json(result.lines[0])["error"] as? String
                == "unsupported format: GIF image; docorient handles JPEG, PNG, TIFF and HEIF (HEIC, AVIF)")
        #expect((try json(result.lines[1])["error"] as? String)?.contains("No such file") == true)
        #expect((try json(result.lines[1])["error_cause"] as? [String: Any])?["call"] as? String == "open")
        #expect(try json(result.lines[0])["error_cause"] is NSNull, "docorient found that one itself")
        #expect(try json(result.lines[2])["error"] is NSNull)
    }

    @Test func usageErrorsExitWith64AndHelpShowsExamples() throws {
        #expect(try Self.docorient("tag", "9", "x.jpg").status == 64)
        #expect(try Self.docorient("inspect").status == 64)
        #expect(try Self.docorient("bake", "--output", "/nonexistent-dir", "x.jpg").status == 64)
        #expect(try Self.docorient("fix", "--lang", "../etc", "x.jpg").status == 64)
        #expect(try Self.docorient("fix", "--trim", "x.jpg").status == 64, "--trim needs --bake")
        #expect(try Self.docorient("fix", "--shard", "4/3", "x.jpg").status == 64)
        let missing = try Self.docorient("fix", "--tessdata", "/nonexistent", "x.jpg")
        #expect(
            missing.status == 1 && missing.err.contains("install tesseract-ocr-eng, or set")
                && missing.err.contains("(here: --tessdata DIR)"))
        // The classifier's model: a missing file names itself and the option; a file that is no
        // model says it could not be loaded, never a crash.
        let noModel = try Self.docorient("fix", "--classifier", "/nonexistent.onnx", "x.jpg")
        #expect(
            noModel.status == 1
                && noModel.err.contains("the orientation classifier /nonexistent.onnx was not found or cannot be read")
                && noModel.err.contains("(here: --classifier FILE)"), "\(noModel.err)")
        let notAModel = try Self.docorient("fix", "--classifier", #filePath, "x.jpg")
        #expect(notAModel.status == 1 && notAModel.err.contains("could not be loaded"), "\(notAModel.err)")
        for command in ["fix", "report", "inspect", "tag", "bake"] {
            let help = try Self.docorient(command, "--help")
            #expect(help.status == 0)
            #expect(help.out.contains("Examples:") && help.out.contains("docorient \(command)"), "\(command) --help")
        }
    }

    @Test func tagRewritesInPlaceAndOutputWritesACopy() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.sampleFiles().first { $0.hasSuffix(".jpg") }!
        let path = dir.appendingPathComponent("a.jpg").path
        try FileManager.default.copyItem(atPath: source, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect(try Self.docorient("tag", "8", path).status == 0)
        #expect(
            try Self.run("exiftool", ["-n", "-s3", "-Orientation", path]).out.trimmingCharacters(
                in: .whitespacesAndNewlines) == "8")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o640, "the file mode is kept")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "a.jpg" }
        #expect(leftovers.isEmpty, "no temporary file is left behind: \(leftovers)")

        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try Self.docorient("tag", "3", "--output", out.path, path).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the original is untouched")
        #expect(
            try Self.run("exiftool", ["-n", "-s3", "-Orientation", out.appendingPathComponent("a.jpg").path]).out
                .hasPrefix("3"))
    }

    @Test func aReadOnlyFileIsAnErrorForThatFileAndStaysUntouched() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.sampleFiles().first { $0.hasSuffix(".jpg") }!
        let locked = dir.appendingPathComponent("locked.jpg").path, open = dir.appendingPathComponent("open.jpg").path
        try FileManager.default.copyItem(atPath: source, toPath: locked)
        try FileManager.default.copyItem(atPath: source, toPath: open)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: locked)
        let before = try Data(contentsOf: URL(fileURLWithPath: locked))
        let result = try Self.docorient("tag", "5", locked, open)
        #expect(result.status == 1)
        #expect(result.err.contains("locked.jpg") && result.err.contains("read-only"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: locked)) == before)
        #expect(
            try Self.run("exiftool", ["-n", "-s3", "-Orientation", open]).out.hasPrefix("5"),
            "the other file is still done")
    }

    @Test func bakeLeavesOrientationOneAndSaysWhenItCannotBePerfect() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let aligned = dir.appendingPathComponent("aligned.jpg").path, odd = dir.appendingPathComponent("odd.jpg").path
        try Self.run("convert", ["-size", "320x240", "gradient:red-blue", "-sampling-factor", "2x2", aligned])
        try Self.run("convert", ["-size", "330x250", "gradient:red-blue", "-sampling-factor", "2x2", odd])
        try Self.run("exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=6", aligned, odd])
        let result = try Self.docorient("bake", aligned, odd)
        #expect(result.status == 0, "\(result.err)")
        #expect(
            try Self.run("exiftool", ["-n", "-s3", "-Orientation", "-ImageWidth", aligned]).out.split(separator: "\n")
                == ["1", "240"])
        #expect(
            try Self.run("exiftool", ["-n", "-s3", "-Orientation", "-ImageWidth", odd]).out.split(separator: "\n") == [
                "6", "330",
            ])
        #expect(result.err.contains("odd.jpg") && result.err.contains("--trim"))
        #expect(try Self.docorient("bake", "--trim", odd).status == 0)
        #expect(
            try Self.run("exiftool", ["-n", "-s3", "-Orientation", "-ImageWidth", odd]).out.split(separator: "\n") == [
                "1", "240",
            ])
    }
}
