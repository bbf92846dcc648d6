import ArgumentParser
import DocOrient
import DocOrientCommandLine
import Foundation

/// `docorient-lab`: the offline lab beside the shipped `docorient`. It records what the readers
/// read, replays it through the decision rules the library ships, fits their thresholds with
/// those rules, shows the classifier's input, and dumps what the analysis sees; none of it runs
/// when a user fixes a file, so none of it is in `docorient` or its package.
@main
struct LabCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docorient-lab",
        abstract: "Record, replay and fit docorient's decisions; show what its readers see.",
        discussion: """
            The tools the project fits and checks docorient with (Benchmarks/orientation, \
            Models/orientation/train.py, docs/decisions): not installed with docorient.

            Examples:
              docorient-lab replay record Corpus/samples/*.jpg > samples.recordings.jsonl
              docorient-lab classify --dump /tmp/squares scan.jpg
              docorient-lab debug analysis scan.jpg
            """,
        subcommands: [ReplayCommand.self, ClassifyCommand.self, DebugCommand.self])

    /// Parses and runs the command as ArgumentParser does, but a failure of docorient's own (a
    /// file that cannot be read, a model that cannot be loaded) is printed as the shipped
    /// `docorient` prints it ("docorient-lab: PATH: cannot open: ...") and exits 1: the lab's
    /// commands read many kinds of file (images, manifests, recordings, lists), and this reports
    /// whichever failed in one place. A command that goes on past a failing file reports it
    /// itself (`forEachFile`).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as DocOrientError {
            printError("docorient-lab: \(error)")
            exit(withError: ExitCode(1))
        } catch {
            exit(withError: error)
        }
    }
}

/// A resolver with the default configuration and the classifier model `classifier` (nil: the
/// installed one), for the lab's commands (`classify`, `replay record`); a model that cannot be
/// loaded is printed and exits 1 (`LabCommand.main`).
func labResolver(
    classifier: String?, withoutNothingGuard: Bool = false, recordingReads: Bool = false,
    calibration: Calibration = .embedded
) throws
    -> Resolver
{
    let configuration = ResolverConfiguration(classifierModel: classifier)
    if recordingReads { return try Resolver.recordingReads(configuration) }
    return withoutNothingGuard
        ? try Resolver.withoutNothingGuard(configuration, calibration: calibration)
        : try Resolver(configuration: configuration, calibration: calibration)
}
