internal import CLeptonica
internal import CTesseract
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One word Tesseract recognised, with the evidence the resolver scores.
package struct RecognizedWord: Sendable, Equatable, Codable {
    package var text: String
    /// Tesseract's word confidence, 0...100.
    package var confidence: Double
    /// Whether the word was found in the language's dictionary (`TessResultIteratorWordIsFromDictionary`).
    package var isFromDictionary: Bool
    /// Whether Tesseract classed it as a number (`TessResultIteratorWordIsNumeric`).
    var isNumeric: Bool
}

/// How Tesseract segments the page it is given (a subset of `TessPageSegMode`).
///
/// psm 3 (auto) and 11 (sparse) can spend tens of seconds in layout analysis on dense fine print,
/// which the word cap does not interrupt (../shared/DOMAIN.md section 7): sparse text is only for coarse
/// images, whose layout analysis is bounded by their few pixels.
package enum PageSegmentation {
    /// psm 6: one uniform block of text.
    case singleBlock
    /// psm 11: as much text as can be found, in no particular order (a few words on a sign, a
    /// line under a picture).
    case sparseText

    /// How Tesseract goes through the pixels in this mode, for the work budget (`WorkCost`).
    var reading: WorkCost.Reading { self == .singleBlock ? .block : .laidOut }

    var raw: TessPageSegMode {
        switch self {
        case .singleBlock: return PSM_SINGLE_BLOCK
        case .sparseText: return PSM_SPARSE_TEXT
        }
    }
}

/// One initialised `TessBaseAPI` (model loaded), reused for many images.
///
/// Not thread-safe, like the handle it owns: use it from one thread at a time. `TesseractPool` hands
/// each engine to one caller at a time, which is what makes the `@unchecked Sendable` honest.
package final class TesseractEngine: @unchecked Sendable {
    private let handle: OpaquePointer

    /// The resolution Tesseract is told the image has. docorient scales what it reads so that
    /// the text is about `targetTextHeight` (22 px) high, the x-height of 10 pt print at 300 dpi;
    /// stating it stops Tesseract from estimating a resolution from the image size.
    static let sourceResolution: Int32 = 300

    /// Loads libtesseract (`docorient_tesseract_load`, once per process): the library is opened on
    /// first use, not at start-up, so the commands that never read text do not pay for it.
    static func loadLibrary() throws {
        var message = [CChar](repeating: 0, count: 512)
        guard docorient_tesseract_load(&message, message.count) == 1 else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw DocOrientError(.library, text)
        }
    }

    /// Loads `languages` (e.g. "eng+deu") from `datapath` with the LSTM engine.
    /// Stands for `TessBaseAPICreate` + `TessBaseAPIInit2`. Slow (tens of milliseconds): pool engines.
    package init(datapath: String, languages: String) throws {
        try Self.loadLibrary()
        guard let handle = TessBaseAPICreate() else {
            throw DocOrientError(.library, "Tesseract could not create a TessBaseAPI")
        }
        // Tesseract writes its chatter ("Estimating resolution", diacritics) to debug_file.
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        let rc = TessBaseAPIInit2(handle, datapath, languages, OEM_LSTM_ONLY)
        guard rc == 0 else {
            TessBaseAPIDelete(handle)
            throw DocOrientError(
                .missingModel, "Tesseract could not load '\(languages)' from \(datapath) (Init returned \(rc))")
        }
        self.handle = handle
        // Inverted-line retries double the recognition time of every low-confidence line, and the
        // wrong candidates are all low-confidence lines: off, except in the coarse look of a page
        // that may hold light print on a dark panel (`PageStage.mayHoldLightPrint`), where a sign's
        // or a poster's may be all the text there is.
        _ = TessBaseAPISetVariable(handle, "tessedit_do_invert", "0")
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// Sets a Tesseract parameter for the following recognitions. Stands for `TessBaseAPISetVariable`.
    func setVariable(_ name: String, _ value: String) throws {
        guard TessBaseAPISetVariable(handle, name, value) != 0 else {
            throw DocOrientError(.library, "Tesseract has no parameter \(name)")
        }
    }

    /// Recognises `image` (1 bpp or 8 bpp) and returns its words in reading order.
    ///
    /// Stands for `TessBaseAPISetPageSegMode` + `SetImage2` + `Recognize` + the result iterator,
    /// then `TessBaseAPIClear` so the engine holds no image between calls.
    /// - Parameters:
    ///   - meter: charged for the recognition and its words; recognition stops at the word where
    ///     `maxWords` (or what is left of the meter's budget) runs out, or where the meter's caller
    ///     cancels (Tesseract's cancel callback, `TessMonitorSetCancelFunc`, asked before each word
    ///     the recogniser starts: with the LSTM engine, once per text line).
    ///     Layout analysis before the first word is not interrupted: psm 4 and 6 keep it bounded.
    ///   - maxWords: most words this recognition may start (with the LSTM engine, text lines).
    /// - Throws: `WorkMeter.Exhausted` when the budget cannot pay for this recognition (nothing is
    ///   read), `CancellationError` when the caller cancelled.
    package func recognize(
        _ image: borrowing Pix, mode: PageSegmentation, meter: WorkMeter, maxWords: Int
    ) throws
        -> [RecognizedWord]
    {
        let allowance = try meter.beginRecognition(
            pixels: image.width * image.height, reading: mode.reading, maxWords: maxWords)
        OpenMP.runSeriallyOnThisThread()
        TessBaseAPISetPageSegMode(handle, mode.raw)
        TessBaseAPISetImage2(handle, image.raw)
        defer { TessBaseAPIClear(handle) }
        TessBaseAPISetSourceResolution(handle, Self.sourceResolution)

        guard let monitor = TessMonitorCreate() else {
            throw DocOrientError(.library, "Tesseract could not create a progress monitor")
        }
        defer { TessMonitorDelete(monitor) }
        var count = WordCount(limit: allowance, meter: meter)
        let status = withUnsafeMutablePointer(to: &count) { pointer -> Int32 in
            TessMonitorSetCancelThis(monitor, pointer)
            TessMonitorSetCancelFunc(monitor) { context, _ in
                guard let count = context?.assumingMemoryBound(to: WordCount.self) else { return false }
                return count.pointee.shouldStopBeforeNextWord()
            }
            return TessBaseAPIRecognize(handle, monitor)
        }
        meter.endRecognition(words: count.started)
        try meter.checkCancellation()
        guard status == 0 else {
            // Recognize reports a stop by its cancel callback as a failure; a budget stop is not one.
            if count.stoppedByLimit { return try words() }
            throw DocOrientError(.library, "Tesseract recognition failed")
        }
        return try words()
    }

    /// The words of the last recognition, in reading order.
    private func words() throws -> [RecognizedWord] {
        guard let iterator = TessBaseAPIGetIterator(handle) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        var words: [RecognizedWord] = []
        repeat {
            guard let cText = TessResultIteratorGetUTF8Text(iterator, RIL_WORD) else { continue }
            let text = String(cString: cText)
            TessDeleteText(cText)
            words.append(
                RecognizedWord(
                    text: text,
                    confidence: Double(TessResultIteratorConfidence(iterator, RIL_WORD)),
                    isFromDictionary: TessResultIteratorWordIsFromDictionary(iterator) != 0,
                    isNumeric: TessResultIteratorWordIsNumeric(iterator) != 0))
        } while TessResultIteratorNext(iterator, RIL_WORD) != 0
        return words
    }
}

/// The state Tesseract's cancel callback sees during one recognition: words started so far
/// against this recognition's allowance, and the caller's cancellation.
private struct WordCount {
    let limit: Int
    let meter: WorkMeter
    private(set) var started = 0
    private(set) var stoppedByLimit = false

    init(limit: Int, meter: WorkMeter) {
        self.limit = limit
        self.meter = meter
    }

    /// Called by Tesseract before each word: true stops recognition there.
    mutating func shouldStopBeforeNextWord() -> Bool {
        if meter.isCancelled { return true }
        guard started < limit else {
            stoppedByLimit = true
            return true
        }
        started += 1
        return false
    }
}

/// Debian's libtesseract runs parts of recognition in OpenMP parallel regions (libgomp). On two
/// cores, with the caller's own threads busy, the region's spinning workers made each small
/// recognition several times slower (decision 12). OMP_THREAD_LIMIT only
/// works when set before the process starts, so the resolver instead makes parallel regions run
/// serially on the calling thread.
enum OpenMP {
    /// With no active levels allowed, every parallel region entered from this thread runs with a team
    /// of one. The setting is per thread (an OpenMP ICV of the thread's implicit task), so it is made
    /// on each thread that calls Tesseract, before every recognition; it costs a function call.
    /// Stands for libgomp's `omp_set_max_active_levels(0)`, through `docorient_openmp_serial`
    /// (libgomp comes with libtesseract, loaded on first use).
    static func runSeriallyOnThisThread() {
        docorient_openmp_serial()
    }

    /// Whether the loaded libtesseract uses OpenMP (libgomp found), so the setting above applies.
    static var isPresent: Bool { docorient_openmp_found() == 1 }
}

/// Tesseract engines for one model configuration.
typealias TesseractPool = EnginePool<TesseractEngine>

extension EnginePool where Engine == TesseractEngine {
    /// Engines reading `languages` with the models in `datapath`.
    convenience init(datapath: String, languages: String, capacity: Int, idleTimeout: Duration) {
        self.init(capacity: capacity, idleTimeout: idleTimeout) {
            try TesseractEngine(datapath: datapath, languages: languages)
        }
    }
}
