import Synchronization

/// How much OCR work resolving one image may spend, counted in work done rather than time, so an
/// image gets the same answer on any machine and under any load.
///
/// Every Tesseract recognition (one text line or window, or the whole page, in one candidate
/// orientation) is one read. The budget's main measure is `work`, in units of about what
/// Tesseract spends on one recognition step (`WorkCost`): a read costs its pixels, weighed by how
/// Tesseract goes through them, plus its steps; decoding the image and the classifier's passes
/// are charged too (`WorkCost.decodeUnits`, `classifierSquareUnits`), so that the units count
/// every kind of work spent on a file. A step is what Tesseract's cancel callback
/// counts: it is asked before each word the recogniser starts, which with the LSTM engine is once
/// per text line (in the sparse-text look a "line" is often one word). The reads, the steps
/// (`words`, after Tesseract's name for them) and the pixels are capped as well. When the budget
/// runs out, the resolver stops reading and answers from what it read, or answers `undecidable`
/// with a reason naming the budget when a candidate it needed went unread.
public struct WorkBudget: Sendable, Equatable, Codable {
    /// Most Tesseract recognitions for one image.
    public var reads: Int
    /// Most recognition steps Tesseract may start for one image, summed over its reads: words in
    /// Tesseract's API, text lines with its LSTM engine (see the type's documentation). A read
    /// stops at the step where the budget ends.
    public var words: Int
    /// Most pixels handed to Tesseract for one image, summed over its reads.
    public var pixels: Int
    /// Most work units for one image, summed over its reads (`WorkCost`). A read stops at the
    /// step where the budget ends.
    public var work: Int

    /// A budget of `reads` recognitions, `words` words, `pixels` pixels and `work` work units.
    public init(reads: Int, words: Int, pixels: Int, work: Int = WorkBudget.standard.work) {
        self.reads = reads
        self.words = words
        self.pixels = pixels
        self.work = work
    }

    /// Decodes a budget; one written before `work` existed gets the standard work.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reads = try c.decode(Int.self, forKey: .reads)
        words = try c.decode(Int.self, forKey: .words)
        pixels = try c.decode(Int.self, forKey: .pixels)
        work = try c.decodeIfPresent(Int.self, forKey: .work) ?? Self.standard.work
    }

    /// The default. `work`: 600 units, the most any right answer of the generated set's fit part
    /// needed, so that it cuts short only files that end undecidable there, and bounds the slowest:
    /// a unit is a few milliseconds on a 2-core machine. The other caps are a backstop: 64 reads,
    /// 600 steps, 16 megapixels (eight readings of a 1600-pixel page) (decision 5).
    public static let standard = WorkBudget(reads: 64, words: 600, pixels: 16_000_000, work: 600)

    /// No limit (for measurement).
    public static let unlimited = WorkBudget(reads: .max, words: .max, pixels: .max, work: .max)
}

/// What one Tesseract read costs in work units. A unit is about what Tesseract spends on one
/// recognition step (`WorkBudget`: with the LSTM engine, a text line), so each step costs one;
/// "word" below is such a step, as Tesseract's callback names it. Pixels cost by how Tesseract goes
/// through them: a text line or window is read as one block of text, every pixel of it by the line
/// recogniser, while a page or a coarse look is laid out first and only what looks like text is
/// recognised, most of it being paper. A block read costs about six times as much per pixel as a
/// laid-out one; in units of a recognised word that is a unit per 10,500 block pixels and per
/// 64,000 laid-out pixels, the latter rounded to the dearer 50,000 because a page of noise (a
/// barcode, paper grain) takes up to twice its fitted time (decision 5).
enum WorkCost {
    /// Block pixels per unit.
    static let blockPixelsPerUnit = 10_000
    /// Laid-out pixels per unit.
    static let layoutPixelsPerUnit = 50_000
    /// Decoded pixels per unit: the stored image is decoded once, grey, at full size
    /// (`GraySource`); a megapixel's decode costs about what a unit does (decision 5).
    static let decodedPixelsPerUnit = 1_000_000
    /// Units per square the orientation classifier is shown: one pass of the model in onnxruntime
    /// on one thread cost about one unit when the budget was fitted, and is left at one since the
    /// budget was fitted with it (decision 5; six units a file at most). Cutting the squares is in
    /// the decode's share.
    static let classifierSquareUnits = 1

    /// The units of decoding `pixels` stored pixels, rounded up.
    static func decodeUnits(pixels: Int) -> Int { (pixels + decodedPixelsPerUnit - 1) / decodedPixelsPerUnit }

    /// How Tesseract goes through the pixels of a read.
    enum Reading {
        /// Every pixel as text lines (one block of text: a line or window crop).
        case block
        /// Laid out first, then what looks like text recognised (a page, a coarse look).
        case laidOut
    }

    /// The units of `pixels` read as `reading`, rounded up.
    static func units(pixels: Int, reading: Reading) -> Int {
        let per = reading == .block ? blockPixelsPerUnit : layoutPixelsPerUnit
        return (pixels + per - 1) / per
    }
}

/// A flag a caller sets to stop one resolution early; checked between reads and, through
/// Tesseract's cancel callback, before every word. Thread-safe.
package final class CancellationSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Asks the work to stop.
    func cancel() { flag.store(true, ordering: .relaxed) }

    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// What one resolution has spent of its `WorkBudget`, and whether its caller cancelled it.
///
/// Used by one resolution on one thread (the Tesseract engine it borrowed); only the cancellation
/// signal is shared.
package final class WorkMeter {
    /// The budget could not pay for a read, which was therefore not made.
    struct Exhausted: Error {}

    let budget: WorkBudget
    private let signal: CancellationSignal?
    private(set) var reads = 0
    private(set) var words = 0
    private(set) var pixels = 0
    /// Work units spent (`WorkCost`).
    private(set) var work = 0
    /// Which part of the budget ran out first, nil while none has.
    private(set) var exhaustedPart: String?

    package init(budget: WorkBudget, signal: CancellationSignal? = nil) {
        self.budget = budget
        self.signal = signal
    }

    var isCancelled: Bool { signal?.isCancelled ?? false }

    /// - Throws: `CancellationError` when the caller cancelled.
    func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Charges one read of an image of `pixels` pixels, gone through as `reading`: the read, its
    /// pixels and their work units.
    /// - Returns: the words this read may recognise: `maxWords`, or less when the budget has
    ///   fewer words or work units left.
    /// - Throws: `Exhausted` when the budget has no read, pixels, words or work left for it;
    ///   `CancellationError` when the caller cancelled.
    func beginRecognition(pixels count: Int, reading: WorkCost.Reading, maxWords: Int) throws -> Int {
        try checkCancellation()
        let units = WorkCost.units(pixels: count, reading: reading)
        if reads >= budget.reads {
            exhaustedPart = exhaustedPart ?? "reads"
        } else if count > budget.pixels - pixels {
            exhaustedPart = exhaustedPart ?? "pixels"
        } else if words >= budget.words {
            exhaustedPart = exhaustedPart ?? "words"
        } else if units >= budget.work - work {
            exhaustedPart = exhaustedPart ?? "work"
        } else {
            reads += 1
            pixels += count
            work += units
            return min(maxWords, budget.words - words, budget.work - work)
        }
        throw Exhausted()
    }

    /// Charges work that is not a Tesseract read (decoding, the classifier's passes): `units`
    /// work units, whatever is left of the budget; the next read finds it spent when they were
    /// all that was left.
    func charge(_ units: Int) {
        work += units
        if work >= budget.work { exhaustedPart = exhaustedPart ?? "work" }
    }

    /// Records the words a read recognised (or started before it was stopped), a work unit each.
    func endRecognition(words count: Int) {
        words += count
        work += count
        if words >= budget.words { exhaustedPart = exhaustedPart ?? "words" }
        if work >= budget.work { exhaustedPart = exhaustedPart ?? "work" }
    }

    /// The spending, for a reason shown to the user.
    var summary: String {
        "\(reads) read\(reads == 1 ? "" : "s"), \(words) word\(words == 1 ? "" : "s"), \(pixels / 1_000_000) MP, "
            + "\(work) work unit\(work == 1 ? "" : "s")"
    }
}
