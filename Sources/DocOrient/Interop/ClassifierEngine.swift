internal import COrientationNet
import Foundation

/// One loaded orientation classifier (`Models/orientation/docorient_orientation.onnx`, or any model
/// of its shape) in onnxruntime's library (`RuntimeLocator`), run on the calling thread only,
/// reused for many images.
///
/// Thread-safe: onnxruntime runs one session from several threads at once, each run on its
/// caller's thread with buffers of its own, and `docorient_net_forward` keeps no state between
/// calls; so the resolver's workers share one engine (`SharedEngine`).
final class ClassifierEngine: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Side of the square the model reads, in pixels.
    static let side = Int(DOCORIENT_NET_SIDE)

    /// The runtime the model runs in, with its version ("onnxruntime 1.28.0").
    let runtime: String

    /// Loads the ONNX model at `path` into onnxruntime's library at `runtime` (a session of one
    /// thread). Stands for `docorient_net_load`.
    init(modelPath path: String, runtime library: String) throws {
        var message = [CChar](repeating: 0, count: 512)
        guard let handle = docorient_net_load(path, library, &message, message.count) else {
            throw DocOrientError(
                .missingModel, "the orientation classifier \(path) could not be loaded",
                cause: .library("docorient_net_load", Self.text(message)))
        }
        self.handle = handle
        self.runtime = String(cString: docorient_net_runtime(handle))
    }

    deinit { docorient_net_free(handle) }

    /// What the model answers for `count` squares of the model's side (`tensor`: count x 3 x side x
    /// side floats, as `ClassifierSquares` cuts them), in one batch: per square, the probabilities
    /// of the model's classes (the text turned clockwise by 0, 90, 180, 270 degrees, and for
    /// docorient's own model nothing to orient). Stands for `docorient_net_forward`.
    func read(tensor: [Float], count: Int) throws -> [[Float]] {
        precondition(tensor.count == count * 3 * Self.side * Self.side, "the squares are the model's side")
        var probabilities = [Float](repeating: 0, count: count * Int(DOCORIENT_NET_MAX_CLASSES))
        var classCount: Int32 = 0
        var tensor = tensor
        var message = [CChar](repeating: 0, count: 512)
        let ok = tensor.withUnsafeMutableBufferPointer { tensor in
            docorient_net_forward(
                handle, tensor.baseAddress, Int32(count), &probabilities, &classCount, &message, message.count)
        }
        guard ok == 1 else {
            throw DocOrientError(
                .library, "the orientation classifier failed",
                cause: .library("docorient_net_forward", Self.text(message)))
        }
        let classes = Int(classCount)
        return (0..<count).map { Array(probabilities[$0 * classes..<($0 + 1) * classes]) }
    }

    private static func text(_ message: [CChar]) -> String {
        message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
