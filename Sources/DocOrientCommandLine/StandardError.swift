import ArgumentParser
import DocOrient
import Foundation

/// Writes to standard error, where the commands' progress and errors go so that stdout stays
/// parseable.
package func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Runs `body` for each path; reports each file's failure, and then how many failed, on standard
/// error after `command` (the program's name) and exits 1 if any failed.
package func forEachFile(_ paths: [String], command: String, _ body: (String) throws -> Void) throws {
    var failed = 0
    for path in paths {
        do {
            try body(path)
        } catch let error as DocOrientError {
            failed += 1
            printError("\(command): \(error.at(path))")
        }
    }
    if failed > 0 {
        printError("\(command): \(failed) of \(paths.count) file\(paths.count == 1 ? "" : "s") failed")
        throw ExitCode(1)
    }
}
