import DocOrientTestSupport
import Foundation

/// The built `docorient-lab`, and the `docorient` whose decisions its replays must give, run on
/// real files for the lab's end-to-end tests.
enum LabCLI {
    static let repoRoot = Repository.root
    static let samples = Repository.samples

    static var binary: String { BuiltProgram.path("docorient-lab") }
    static var docorient: String { BuiltProgram.path("docorient") }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> BuiltProgram.Output {
        try BuiltProgram.run(executable, arguments)
    }

    static func sampleFiles() throws -> [String] { try BuiltProgram.sampleFiles() }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docorient-lab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
