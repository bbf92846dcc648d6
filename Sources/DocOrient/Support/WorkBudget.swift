import Synchronization

/// How much OCR work resolving one image may spend, counted in work done rather than time, so an
/// image gets the same answer on any machine and under any load.
///
/// Every Tesseract recognition (one text window or the whole page, in one candidate orientation)
/// is one read; the budget caps the reads, the words Tesseract recognises and the pixels it is
/// given (its layout analysis grows with them). When the budget runs out, the resolver stops
/// reading and answers from what it read, or answers `undecidable` with a reason naming the
/// budget when a candidate it needed went unread.
public struct WorkBudget: Sendable, Equatable, Codable {
    /// Most Tesseract recognitions for one image.
    public var reads: Int
    /// Most words Tesseract may recognise for one image, summed over its reads. A read stops at
    /// the word where the budget ends.
    public var words: Int
    /// Most pixels handed to Tesseract for one image, summed over its reads.
    public var pixels: Int

    /// A budget of `reads` recognitions, `words` words and `pixels` pixels.
    public init(reads: Int, words: Int, pixels: Int) {
        self.reads = reads
        self.words = words
        self.pixels = pixels
    }

    /// The default, chosen on the fit part of the seed-23 set (Benchmarks/orientation/RESULTS.md
    /// "Session 8"): Tesseract recognises some 100-200 words a second on this kind of machine
    /// (one 1600-pixel page of fine print: 190 words in 2.6 s), so 600 words hold a resolution to
    /// a few seconds; 16 megapixels are eight readings of a 1600-pixel page, whose layout analysis
    /// the pixels stand for. On the fit part it cost one right answer of 43 against no budget.
    public static let standard = WorkBudget(reads: 64, words: 600, pixels: 16_000_000)

    /// No limit (for measurement).
    public static let unlimited = WorkBudget(reads: .max, words: .max, pixels: .max)
}

/// A flag a caller sets to stop one resolution early; checked between reads and, through
/// Tesseract's cancel callback, before every word. Thread-safe.
final class CancellationSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Asks the work to stop.
    func cancel() { flag.store(true, ordering: .relaxed) }

    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// What one resolution has spent of its `WorkBudget`, and whether its caller cancelled it.
///
/// Used by one resolution on one thread (the Tesseract engine it borrowed); only the cancellation
/// signal is shared.
final class WorkMeter {
    /// The budget could not pay for a read, which was therefore not made.
    struct Exhausted: Error {}

    let budget: WorkBudget
    private let signal: CancellationSignal?
    private(set) var reads = 0
    private(set) var words = 0
    private(set) var pixels = 0
    /// Which part of the budget ran out first, nil while none has.
    private(set) var exhaustedPart: String?

    init(budget: WorkBudget, signal: CancellationSignal? = nil) {
        self.budget = budget
        self.signal = signal
    }

    var isCancelled: Bool { signal?.isCancelled ?? false }

    /// - Throws: `CancellationError` when the caller cancelled.
    func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Charges one read of an image of `pixels` pixels.
    /// - Returns: the words this read may recognise: `maxWords`, or less when the budget has less.
    /// - Throws: `Exhausted` when the budget has no read, pixels or words left for it;
    ///   `CancellationError` when the caller cancelled.
    func beginRecognition(pixels count: Int, maxWords: Int) throws -> Int {
        try checkCancellation()
        if reads >= budget.reads {
            exhaustedPart = exhaustedPart ?? "reads"
        } else if count > budget.pixels - pixels {
            exhaustedPart = exhaustedPart ?? "pixels"
        } else if words >= budget.words {
            exhaustedPart = exhaustedPart ?? "words"
        } else {
            reads += 1
            pixels += count
            return min(maxWords, budget.words - words)
        }
        throw Exhausted()
    }

    /// Records the words a read recognised (or started before it was stopped).
    func endRecognition(words count: Int) {
        words += count
        if words >= budget.words { exhaustedPart = exhaustedPart ?? "words" }
    }

    /// The spending, for a reason shown to the user.
    var summary: String {
        "\(reads) read\(reads == 1 ? "" : "s"), \(words) word\(words == 1 ? "" : "s"), \(pixels / 1_000_000) MP"
    }
}
