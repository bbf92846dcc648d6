import Foundation
import Testing

/// The commands that never read text do not load Tesseract (its library and the ~55 it brings:
/// curl, archive, TLS...), which is most of a process's start-up; `fix` loads it when it reads.
struct StartupTests {
    /// The shared libraries the dynamic loader opened while `docorient` ran `arguments`.
    static func librariesLoaded(_ arguments: [String]) throws -> [String] {
        let run = try CLITests.run("/usr/bin/env", ["LD_DEBUG=files", CLITests.binary] + arguments)
        #expect(run.status == 0, "\(arguments): \(run.err.suffix(300))")
        // ld.so writes "file=libtesseract.so.5 [0];  needed by ..." or "... dynamically loaded by ...".
        return run.err.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: "file=") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != " " && $0 != "[" })
        }
    }

    @Test func tagInspectAndBakeDoNotLoadTesseractButFixDoes() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = CLITests.samples.appendingPathComponent("0003_letter.jpg").path
        let commands: [[String]] = [
            ["inspect", sample], ["tag", "6", "--output", dir.path, sample], ["bake", "--output", dir.path, sample],
        ]
        for command in commands {
            let libraries = try Self.librariesLoaded(command)
            #expect(libraries.contains { $0.hasPrefix("libturbojpeg") }, "the loader's output is read: \(libraries)")
            #expect(
                !libraries.contains { $0.hasPrefix("libtesseract") || $0.hasPrefix("libcurl") },
                "\(command[0]): \(libraries)")
        }
        let fix = try Self.librariesLoaded(["fix", "--dry-run", sample])
        #expect(fix.contains { $0.hasPrefix("libtesseract") }, "fix reads text: \(fix)")
    }
}
