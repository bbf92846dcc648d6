import Foundation
import Testing

/// A file the lab cannot read is named on standard error as the shipped `docorient` names it
/// ("PATH: cannot open: ..."), with exit status 1, whichever kind of file it is; a command that goes on
/// past a failing file also says how many failed.
struct MissingFileCLITests {
    /// The commands, each with the missing file at `{}`, and whether they count failed files.
    static let commands: [(arguments: [String], counts: Bool)] = [
        (["classify", "{}"], true),
        (["replay", "record", "{}"], true),
        (["replay", "check", "{}"], false),
        (["replay", "fit", "--manifest", "{}", "recordings.jsonl"], false),
        (["debug", "probe", "{}"], false),
        (["debug", "papers", "{}"], false),
        (["debug", "evaluate", "--manifest", "{}"], false),
    ]

    @Test(arguments: commands)
    func aMissingFileIsNamedOnStandardErrorAndExitsOne(arguments: [String], counts: Bool) throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)")
            .path
        let run = try LabCLI.run(LabCLI.binary, arguments.map { $0 == "{}" ? missing : $0 })
        #expect(run.status == 1, "\(run.err)")
        #expect(run.out.isEmpty)
        var expected = ["docorient-lab: \(missing): cannot open: No such file or directory"]
        if counts { expected.append("docorient-lab: 1 of 1 file failed") }
        #expect(run.err.split(separator: "\n").map(String.init) == expected)
    }

    /// `debug papers` reports a listed file it cannot read and goes on with the others.
    @Test func papersReportsAListedFileItCannotReadAndGoesOn() throws {
        let directory = try LabCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.jpg").path
        let list = directory.appendingPathComponent("files.txt")
        try [missing, try #require(LabCLI.sampleFiles().first)].joined(separator: "\n")
            .write(to: list, atomically: true, encoding: .utf8)
        let run = try LabCLI.run(LabCLI.binary, ["debug", "papers", list.path])
        #expect(run.status == 1)
        #expect(run.lines.count == 1)
        #expect(
            run.err.split(separator: "\n").map(String.init) == [
                "docorient-lab: \(missing): cannot open: No such file or directory",
                "docorient-lab: 1 of 2 files failed",
            ])
    }
}
