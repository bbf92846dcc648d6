import Foundation
import Testing

import DocOrient

/// README's library example, compiled and run as written (public API only: no @testable).
struct ReadmeExampleTests {
    @Test func theLibraryExampleRunsAsDocumented() throws {
        let sample = Fixtures.samples.appendingPathComponent("0003_letter.jpg")
        let upload = try [UInt8](Data(contentsOf: sample))
        let fixer = Fixer(resolver: try Resolver(configuration: ResolverConfiguration(languages: "eng")))
        let (metadata, decision) = try fixer.resolve(bytes: upload)
        #expect(metadata.exifOrientation == 6)
        #expect(decision.orientation == .rotate270, "the manifest says 8")
        let (fixed, record) = fixer.fix(bytes: upload)
        #expect(record.verdict == .disagrees && record.action == .tagRewritten)
        #expect(try ImageMetadata.read(fixed).exifOrientation == 8)
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("receipt.jpg").path
        try Data(upload).write(to: URL(fileURLWithPath: path))
        let onDisk = fixer.fix(path: path, options: FixOptions(bake: true))
        #expect(onDisk.action == .baked)
        #expect(try ImageMetadata.read(FileIO.read(path)).exifOrientation == 1)
    }
}
