import ArgumentParser
import DocOrient
import Foundation

/// Options every file-changing command shares.
struct WriteOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Write changed copies into DIR instead of replacing the originals.", valueName: "DIR"))
    var output: String?

    func validate() throws {
        guard let output else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--output \(output) is not an existing directory")
        }
    }

    var destination: Destination { output.map { .directory($0) } ?? .inPlace }
}

/// Writes to standard error, where human progress and errors go so that stdout stays parseable.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Runs `body` for each path; reports failures per file and exits 1 if any failed.
func forEachFile(_ paths: [String], _ body: (String) throws -> Void) throws {
    var failed = 0
    for path in paths {
        do {
            try body(path)
        } catch let error as DocOrientError {
            failed += 1
            printError("docorient: \(error.at(path))")
        }
    }
    if failed > 0 {
        printError("docorient: \(failed) of \(paths.count) file\(paths.count == 1 ? "" : "s") failed")
        throw ExitCode(1)
    }
}
