internal import CLeptonica
internal import CTesseract
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One word Tesseract recognised, with the evidence the resolver scores.
struct RecognizedWord: Sendable, Equatable, Codable {
    var text: String
    /// Tesseract's word confidence, 0...100.
    var confidence: Double
    /// Whether the word was found in the language's dictionary (`TessResultIteratorWordIsFromDictionary`).
    var isFromDictionary: Bool
    /// Whether Tesseract classed it as a number (`TessResultIteratorWordIsNumeric`).
    var isNumeric: Bool
}

/// How Tesseract segments the page it is given (a subset of `TessPageSegMode`).
///
/// Only the bounded modes: psm 3 (auto) and 11 (sparse) can spend tens of seconds in layout analysis
/// on dense fine print, and a recognition deadline does not interrupt them (DOMAIN.md section 7).
enum PageSegmentation {
    /// psm 4: one column of text of variable sizes.
    case singleColumn
    /// psm 6: one uniform block of text.
    case singleBlock

    var raw: TessPageSegMode {
        switch self {
        case .singleColumn: return PSM_SINGLE_COLUMN
        case .singleBlock: return PSM_SINGLE_BLOCK
        }
    }
}

/// One initialised `TessBaseAPI` (model loaded), reused for many images.
///
/// Not thread-safe, like the handle it owns: use it from one thread at a time. `TesseractPool` hands
/// each engine to one caller at a time, which is what makes the `@unchecked Sendable` honest.
final class TesseractEngine: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Loads `languages` (e.g. "eng+deu") from `datapath` with the LSTM engine.
    /// Stands for `TessBaseAPICreate` + `TessBaseAPIInit2`. Slow (tens of milliseconds): pool engines.
    init(datapath: String, languages: String) throws {
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
        // wrong candidates are all low-confidence lines: the resolver never needs white-on-black.
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
    /// - Parameter deadlineMilliseconds: stops recognition (not layout analysis) after this long.
    func recognize(_ image: borrowing Pix, mode: PageSegmentation, deadlineMilliseconds: Int?) throws
        -> [RecognizedWord]
    {
        OpenMP.runSeriallyOnThisThread()
        TessBaseAPISetPageSegMode(handle, mode.raw)
        TessBaseAPISetImage2(handle, image.raw)
        defer { TessBaseAPIClear(handle) }
        TessBaseAPISetSourceResolution(handle, 300)

        var monitor: OpaquePointer? = nil
        if let deadlineMilliseconds {
            monitor = TessMonitorCreate()
            if let monitor { TessMonitorSetDeadlineMSecs(monitor, Int32(deadlineMilliseconds)) }
        }
        defer { if let monitor { TessMonitorDelete(monitor) } }
        guard TessBaseAPIRecognize(handle, monitor) == 0 else {
            throw DocOrientError(.library, "Tesseract recognition failed")
        }

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

/// Initialised Tesseract engines for one model configuration, reused across images and threads.
///
/// Thread-safe: `withEngine` lends each engine to exactly one caller at a time and creates another
/// when all are lent out, so N concurrent callers hold at most N engines; Init runs once per engine,
/// never per image.
final class TesseractPool: Sendable {
    let datapath: String
    let languages: String
    private let idle = Mutex<[TesseractEngine]>([])

    init(datapath: String, languages: String) {
        self.datapath = datapath
        self.languages = languages
    }

    /// Runs `body` with an engine that no other caller uses meanwhile.
    func withEngine<R>(_ body: (TesseractEngine) throws -> R) throws -> R {
        let engine = try idle.withLock { $0.popLast() } ?? TesseractEngine(datapath: datapath, languages: languages)
        defer { idle.withLock { $0.append(engine) } }
        return try body(engine)
    }

    /// Creates one engine now, so that a missing or broken model fails at setup, not mid-batch.
    func warmUp() throws {
        try withEngine { _ in }
    }
}

/// Debian's libtesseract runs parts of recognition in OpenMP parallel regions (libgomp). On two
/// cores, with the caller's own threads busy, the region's spinning workers made each small
/// recognition about 8x slower (0.35 s instead of 0.04 s per text window). OMP_THREAD_LIMIT only
/// works when set before the process starts, so the resolver instead makes parallel regions run
/// serially on the calling thread.
enum OpenMP {
    private typealias SetLevels = @convention(c) (Int32) -> Void

    /// libgomp's `omp_set_max_active_levels`, found at run time (libtesseract already loaded
    /// libgomp); nil when Tesseract was built without OpenMP.
    private static let setMaxActiveLevels: SetLevels? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "omp_set_max_active_levels") else { return nil }
        return unsafeBitCast(symbol, to: SetLevels.self)
    }()

    /// With no active levels allowed, every parallel region entered from this thread runs with a team
    /// of one. The setting is per thread (an OpenMP ICV of the thread's implicit task), so it is made
    /// on each thread that calls Tesseract, before every recognition; it costs a function call.
    static func runSeriallyOnThisThread() {
        setMaxActiveLevels?(0)
    }
}
