import Foundation
import Testing

/// `docorient serve` as a user starts it: a real process on a free loopback port, asked with curl.
struct ServeCLITests {
    @Test func serveAnswersWithTheRecordFixGivesAndStopsCleanlyOnSIGTERM() throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CLITests.binary)
        server.arguments = ["serve", "--port", "0"]
        let err = Pipe()
        server.standardError = err
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }

        // The port it chose, from its "listening on" line (it loads the model first).
        var seen = ""
        var port: Int?
        while port == nil {
            let chunk = err.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            seen += String(decoding: chunk, as: UTF8.self)
            if let range = seen.range(of: "docorient: listening on http://127.0.0.1:") {
                port = Int(seen[range.upperBound...].prefix(while: \.isNumber))
            }
        }
        let listening = try #require(port, "no listening line: \(seen)")

        let health = try CLITests.run("curl", ["-s", "http://127.0.0.1:\(listening)/healthz"])
        #expect(health.out.contains(#""status":"ok""#))

        let sample = CLITests.samples.appendingPathComponent("0003_letter.jpg").path
        let answer = try CLITests.run(
            "curl", ["-s", "--data-binary", "@\(sample)", "http://127.0.0.1:\(listening)/v1/orientation"])
        let fix = try CLITests.run(CLITests.binary, ["fix", "--dry-run", "--json", sample])
        func comparable(_ line: String) throws -> String {
            var object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            object["elapsed_ms"] = nil
            object["path"] = nil  // an upload has no file name
            return String(
                decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(
            try comparable(answer.out) == comparable(try #require(fix.lines.first)), "the service's record is fix's")

        let notAnImage = try CLITests.run(
            "curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "GIF89a",
                "http://127.0.0.1:\(listening)/v1/orientation",
            ])
        #expect(notAnImage.out == "415")

        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        #expect(server.terminationReason == .exit && server.terminationStatus == 0, "SIGTERM is a clean stop")
    }
}
