import ArgumentParser
import DocOrient
import DocOrientBatch
import DocOrientCommandLine
import DocOrientReview
import Foundation
import Logging

struct ReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Serve a page to look through a batch's files and turn them.",
        discussion: """
            Serves, on 127.0.0.1 unless --host says otherwise, a page of the files of a batch over \
            FOLDER: first those that need a look (undecidable, confidence below --below, turned \
            against their tag), then the rest on demand, each as it shows now with docorient's \
            answer and reason, and buttons to turn it left, right, 180, mirror it, or keep it \
            (keys: arrows left, right and down, m, k; n and p for the next and previous file). A \
            click makes the lossless change fix makes (the orientation tag rewritten; every other \
            byte kept), keeps the original for undo, and records the orientation in the journal as \
            a person's decision, which a later fix leaves alone and report --labels exports. A \
            file that changed since the batch is refused, with nothing written. Only files under \
            FOLDER that the journal records are served, never through a symbolic link. On an \
            address other than loopback every request needs the token in the printed address.

            Examples:
              docorient review ~/Receipts
              docorient review --port 0 ~/Receipts
              docorient review --host 0.0.0.0 --port 8081 ~/Receipts   # prints an address with ?token=
            """)

    @Option(help: "Address to listen on (loopback unless told otherwise).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port, printed when listening).")
    var port = 8081

    @Option(
        help: ArgumentHelp(
            "The token requests must carry (default: a new one, unless on loopback).", valueName: "TOKEN"))
    var token: String?

    @Option(help: ArgumentHelp("The journal, when it is not FOLDER/.docorient.sqlite.", valueName: "PATH"))
    var journal: String?

    @Option(help: ArgumentHelp("Decided files below this confidence need a look.", valueName: "P"))
    var below = 0.9

    @Flag(help: "No access log.")
    var quiet = false

    @Argument(help: "The folder a batch (docorient fix) ran over.")
    var folder: String

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0-65535, got \(port)") }
        guard (0...1).contains(below) else { throw ValidationError("--below takes 0-1, got \(below)") }
        if let token, token.count < 16 || !token.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            throw ValidationError("--token takes at least 16 letters, digits, - or _")
        }
    }

    func run() async throws {
        let review: Review
        do {
            review = try Review(folder: folder, journalPath: journal.map(Journal.location), lowConfidence: below)
        } catch let error as DocOrientError {
            printError("docorient: \(error)")
            throw ExitCode(1)
        }
        let secret = token ?? (ReviewConfiguration.isLoopback(host) ? nil : ReviewConfiguration.newToken())
        let configuration = ReviewConfiguration(host: host, port: port, token: secret)
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "docorient")
        logger.logLevel = quiet ? .warning : .info
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let app = makeReviewApplication(review: review, configuration: configuration, logger: logger) { port in
            let query = secret.map { "?token=\($0)" } ?? ""
            printError("docorient: reviewing \(review.folder) on http://\(host):\(port)/\(query)")
        }
        try await app.runService()
    }
}
