import Foundation
import Testing

/// Replays the committed samples and every fuzzing regression file through each fuzz target, as the
/// fuzzer runs them (a crash fails the test run).
struct FuzzReplayTests {
    static let targets = ["jpeg", "tiff", "png", "xmp", "turbojpeg", "heif", "pdf"]
    static var replayBinary: String {
        URL(fileURLWithPath: CLITests.binary).deletingLastPathComponent().appendingPathComponent("DocOrientFuzz").path
    }

    @Test(arguments: targets)
    func everySampleAndRegressionFileRunsThroughTheTarget(target: String) throws {
        var files = try CLITests.sampleFiles()
        let regressions = CLITests.repoRoot.appendingPathComponent("Tests/Regressions/\(target)")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: regressions.path) {
            files += names.sorted().map { regressions.appendingPathComponent($0).path }
        }
        let result = try CLITests.run(Self.replayBinary, [target] + files)
        #expect(result.status == 0, "\(target): \(result.err.suffix(500))")
        #expect(result.lines.count == files.count, "every file was replayed")
    }
}
