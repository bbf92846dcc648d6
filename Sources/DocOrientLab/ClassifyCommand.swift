import ArgumentParser
import DocOrient
import DocOrientCommandLine
import Foundation

/// What the orientation classifier sees and answers for each file: for the test that checks it
/// against onnxruntime (Models/classifier/test_classifier.py) and for the squares `Models/orientation/train.py`
/// trains on.
struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Show the orientation classifier's input and answer for each file.")

    @Option(help: ArgumentHelp("Write FILE.grey.pgm and FILE.input.f32 (the model's input) here.", valueName: "DIR"))
    var dump: String?

    @Option(help: ArgumentHelp("The classifier's model file.", valueName: "FILE"))
    var classifier: String?

    @Argument(help: "Image files (JPEG, PNG, TIFF, HEIF).")
    var paths: [String]

    func run() throws {
        let resolver = try labResolver(classifier: classifier)
        try forEachFile(paths, command: "docorient-lab") { path in
            let probe = try resolver.classifierProbe(try FileIO.read(path))
            if let dump {
                let name = URL(fileURLWithPath: dump).appendingPathComponent(
                    URL(fileURLWithPath: path).lastPathComponent)
                let header = Data("P5\n\(probe.width) \(probe.height)\n255\n".utf8)
                try (header + Data(probe.grey)).write(to: name.appendingPathExtension("grey.pgm"))
                try probe.input.withUnsafeBytes { Data($0) }.write(to: name.appendingPathExtension("input.f32"))
            }
            var object: [String: Any] = [
                "path": path, "runtime": probe.runtime, "width": probe.width, "height": probe.height,
                "centre_short_side": probe.centreShortSide, "text_short_side": probe.textShortSide,
                "origins": probe.origins, "classes": probe.classes.map { $0.map(Double.init) },
                "rotations": probe.rotations, "seconds": probe.seconds,
            ]
            if let nothing = probe.nothing { object["nothing"] = nothing }
            let data = try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
