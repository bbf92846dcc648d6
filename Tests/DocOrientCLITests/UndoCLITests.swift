import Foundation
import Testing

/// `docorient undo` after real batches over copies of the committed samples.
struct UndoCLITests {
    /// A copy of the samples folder, fixed with `options`; returns the folder and its images.
    static func fixedCopy(_ options: [String]) throws -> (dir: URL, root: URL, images: [String]) {
        let dir = try CLITests.temporaryDirectory()
        let root = dir.appendingPathComponent("receipts")
        try FileManager.default.copyItem(at: CLITests.samples, to: root)
        let images = try CLITests.sampleFiles().map {
            root.appendingPathComponent(URL(fileURLWithPath: $0).lastPathComponent).path
        }
        let fix = try CLITests.run(CLITests.binary, ["fix", "--jobs", "2"] + options + [root.path])
        #expect(fix.status == 0, "\(fix.err)")
        return (dir, root, images)
    }

    static func original(_ image: String) throws -> Data {
        try Data(contentsOf: CLITests.samples.appendingPathComponent(URL(fileURLWithPath: image).lastPathComponent))
    }

    static func results(_ output: CLITests.Output) throws -> [String: (outcome: String, reason: String)] {
        var byName: [String: (String, String)] = [:]
        for line in output.lines {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = URL(fileURLWithPath: try #require(object["path"] as? String)).lastPathComponent
            byName[name] = (try #require(object["outcome"] as? String), object["reason"] as? String ?? "")
        }
        return byName
    }

    @Test(arguments: [[String](), ["--bake"]])
    func undoGivesBackByteIdenticalOriginalsOfRewrittenAddedAndBakedFiles(_ options: [String]) throws {
        let (dir, root, images) = try Self.fixedCopy(options)
        defer { try? FileManager.default.removeItem(at: dir) }
        let changed = try images.filter { try Data(contentsOf: URL(fileURLWithPath: $0)) != Self.original($0) }
        #expect(changed.count >= 15, "the samples hold wrong and missing tags")

        let dry = try CLITests.run(CLITests.binary, ["undo", "--dry-run", "--json", root.path])
        #expect(dry.status == 0, "\(dry.err)")
        #expect(try Self.results(dry).values.allSatisfy { $0.outcome == "would_restore" })
        #expect(
            try images.filter { try Data(contentsOf: URL(fileURLWithPath: $0)) != Self.original($0) }.count
                == changed.count,
            "a dry run changes nothing")

        let undo = try CLITests.run(CLITests.binary, ["undo", "--json", root.path])
        #expect(undo.status == 0, "\(undo.err)")
        let results = try Self.results(undo)
        #expect(Set(results.keys) == Set(changed.map { URL(fileURLWithPath: $0).lastPathComponent }))
        // Both ways back are used: a wrong tag edited back, and a kept original (tags added; bakes).
        #expect(results.values.contains { $0.reason == "tag edited back" })
        #expect(results.values.contains { $0.reason == "kept original" })
        for image in images {
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: image)) == Self.original(image),
                "\(image) is not its original")
        }
        // Undone files stay undone: a second run in the same mode leaves them alone.
        let again = try CLITests.run(CLITests.binary, ["fix", "--jobs", "2"] + options + [root.path])
        #expect(again.status == 0)
        #expect(again.err.contains("\(images.count) files were already handled"), "\(again.err.suffix(300))")
    }

    @Test func undoRefusesAFileEditedAfterTheFixAndLeavesItAlone() throws {
        let (dir, root, images) = try Self.fixedCopy([])
        defer { try? FileManager.default.removeItem(at: dir) }
        let edited = try #require(
            try images.first { try Data(contentsOf: URL(fileURLWithPath: $0)) != Self.original($0) })
        #expect(try CLITests.run(CLITests.binary, ["tag", "3", edited]).status == 0)
        let afterEdit = try Data(contentsOf: URL(fileURLWithPath: edited))

        let undo = try CLITests.run(CLITests.binary, ["undo", "--json", root.path, edited])
        #expect(undo.status == 1, "a refusal is a failure exit")
        let result = try #require(try Self.results(undo)[URL(fileURLWithPath: edited).lastPathComponent])
        #expect(result.outcome == "refused")
        #expect(result.reason.contains("changed after docorient fixed it"), "\(result.reason)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: edited)) == afterEdit, "left alone")

        let stranger = try CLITests.run(
            CLITests.binary, ["undo", root.path, dir.appendingPathComponent("elsewhere.jpg").path])
        #expect(stranger.status == 1)
        #expect(stranger.out.contains("not in the journal"))
    }
}
