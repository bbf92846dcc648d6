import Foundation

/// A program this package builds (`docorient`, `docorient-lab`, `DocOrientFuzz`), found beside the
/// test bundle and run as a person runs it: what the end-to-end tests assert on.
public enum BuiltProgram {
    /// The built executable `name`: beside the test runner, in its bundle or above it, or in
    /// `.build/debug`.
    public static func path(_ name: String) -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
                .path,
            Bundle.main.bundleURL.appendingPathComponent(name).path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path,
            Repository.root.appendingPathComponent(".build/debug/\(name)").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }

    /// What a run printed, and its exit status.
    public struct Output: Sendable {
        /// Standard output.
        public var out: String
        /// Standard error.
        public var err: String
        /// The exit status.
        public var status: Int32
        /// Standard output's lines, empty ones left out.
        public var lines: [String] { out.split(separator: "\n").map(String.init) }
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments` to its end.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain stderr on another thread: a child that fills one pipe while we wait on the other
        // would block forever.
        let errData = ErrorBuffer()
        let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let e = errData.wait()
        return Output(
            out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self),
            status: process.terminationStatus)
    }

    /// The committed samples' photos (`Corpus/samples`, JPEG and PNG), by name.
    public static func sampleFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Repository.samples.path)
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted().map {
                Repository.samples.appendingPathComponent($0).path
            }
    }
}

/// Collects what a reader thread read, for the thread that waits for it.
final class ErrorBuffer: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()
    func set(_ d: Data) {
        data = d
        done.signal()
    }
    func wait() -> Data {
        done.wait()
        return data
    }
}
