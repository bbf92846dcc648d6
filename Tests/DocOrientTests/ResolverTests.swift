import DocOrientTestSupport
import Foundation
import Testing

@testable import DocOrient

/// One row of Corpus/samples/manifest.csv or Corpus/regressions/manifest.csv.
struct ResolverSample: CustomTestStringConvertible, Sendable {
    var file: String
    var upright: Int
    var decidable: Bool
    var kind: String
    var directory: URL

    var testDescription: String { "\(file) (\(kind), upright \(upright))" }

    static let corpus = Repository.url("Corpus")

    /// The real photos and scans beside the checkout (`../shared/real`); the tree never holds them.
    static let realSet = corpus.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/real")

    /// The committed samples; empty (and the tests then fail) when the manifest is missing.
    static let all = load("samples")
    /// Generated files the resolver once got wrong (Corpus/regressions/README.md).
    static let regressions = load("regressions")

    static func load(_ folder: String) -> [ResolverSample] {
        let directory = corpus.appendingPathComponent(folder)
        let rows = (try? CSV.rows(atPath: directory.appendingPathComponent("manifest.csv").path)) ?? []
        return rows.compactMap { row in
            guard let file = row["file"], let upright = row["upright_orientation"], let kind = row["kind"] else {
                return nil
            }
            return ResolverSample(
                file: file, upright: Int(upright) ?? 0, decidable: row["decidable"] == "1", kind: kind,
                directory: directory)
        }
    }

    func bytes() throws -> [UInt8] {
        try [UInt8](Data(contentsOf: directory.appendingPathComponent(file)))
    }
}

/// One resolver for the whole suite: creating engines is the slow part, and sharing it is what the
/// type promises to support.
enum SharedResolver {
    static let result = Result { try Resolver(configuration: ResolverConfiguration()) }
    static func get() throws -> Resolver { try result.get() }

    static func decide(_ sample: ResolverSample) throws -> Decision {
        let bytes = try sample.bytes()
        let metadata = try ImageMetadata.read(bytes)
        return try get().decide(imageBytes: bytes, metadata: metadata, prior: metadata.effectiveOrientation)
    }
}

struct ResolverTests {
    /// Debian's libtesseract runs recognition in OpenMP regions whose spinning workers made each
    /// read several times slower on two cores; the resolver turns them serial through libgomp,
    /// which it must find in the lazily loaded library's dependencies (a global lookup does not).
    @Test func openMPIsFoundOnceTesseractIsLoaded() throws {
        _ = try SharedResolver.get().pool.warmUp()
        #expect(OpenMP.isPresent, "libgomp's omp_set_max_active_levels not found through libtesseract")
    }

    @Test func theCommittedSamplesArePresent() {
        #expect(ResolverSample.all.count >= 20)
        #expect(ResolverSample.all.contains { !$0.decidable })
        #expect(ResolverSample.all.contains { $0.decidable && Orientation(exifValue: $0.upright)?.isMirrored == true })
    }

    /// Samples today's resolver may leave undecidable: a handwritten note at JPEG quality 60-70
    /// (issue "Resolver 2"). Undecidable is allowed for it; a wrong answer never. (0029_sign, a few
    /// large words seen from afar, left this list with the coarse look; 0019_twowords, two words too
    /// few for the text alone, `DecisionRules.minConfidentWords`, when the text and the classifier
    /// came to answer together, `DecisionRules.agreement`.)
    static let knownUndecidable: Set<String> = ["0035_handnote.jpg"]

    @Test(arguments: ResolverSample.all.filter(\.decidable))
    func everyDecidableSampleResolvesToItsUprightOrientation(_ sample: ResolverSample) throws {
        let decision = try SharedResolver.decide(sample)
        if Self.knownUndecidable.contains(sample.file), decision.orientation == nil { return }
        #expect(decision.orientation?.exifValue == sample.upright, "\(decision)")
        #expect(decision.confidence > 0.5 && decision.confidence <= 1)
        #expect(decision.candidates.first?.orientation == decision.orientation)
    }

    @Test func theRegressionFilesArePresent() {
        #expect(ResolverSample.regressions.count >= 4)
    }

    @Test(arguments: ResolverSample.regressions)
    func everyRegressionFileResolvesToItsUprightOrientation(_ sample: ResolverSample) throws {
        let decision = try SharedResolver.decide(sample)
        #expect(decision.orientation?.exifValue == sample.upright, "\(decision)")
    }

    /// An advert whose only text is light captions on dark panels over a photo (real set 091,
    /// stored upright): read whatever the tag says. Before the coarse look retried lines inverted it
    /// was "no text found".
    @Test(RealSet.trait, arguments: [nil, Orientation.rotate90, .rotate180])
    func lightPrintOnDarkPanelsIsRead(tag: Orientation?) throws {
        let url = try RealSet.url("091_poster_advert_photo.jpg")
        let bytes = try [UInt8](Data(contentsOf: url))
        let decision = try SharedResolver.get().decide(
            imageBytes: bytes, metadata: try ImageMetadata.read(bytes), prior: tag)
        #expect(decision.orientation == .identity, "\(decision)")
    }

    /// Inverted retries only where light print can be: a light-corrected page (paper at 200) with
    /// near-white marks over a word's strokes asks for them, one with a speck of glare does not,
    /// and so does the advert's page, whose captions read only inverted.
    @Test(RealSet.trait) func invertedRetriesAreAskedForWhereLightPrintCanBe() throws {
        func page(whiteSide: Int) throws -> Pix {
            let page = try Pix.blank(width: 1200, height: 900, depth: 8)
            page.fill(gray: 200)
            let white = try Pix.blank(width: whiteSide, height: whiteSide, depth: 8)
            white.fill(gray: 255)
            page.paste(white, x: 300, y: 400)
            return page
        }
        #expect(try PageStage.mayHoldLightPrint(page(whiteSide: 12)))  // 144 pixels: a short word's strokes
        #expect(try !PageStage.mayHoldLightPrint(page(whiteSide: 6)))  // 36 pixels: a speck
        let bytes = try [UInt8](
            Data(contentsOf: RealSet.url("091_poster_advert_photo.jpg")))
        let source = try GraySource(bytes: bytes, metadata: try ImageMetadata.read(bytes), maxPixels: 100_000_000)
        let advert = try SharedResolver.get().calibration.page.pageImage(
            source: source, paper: PixelBox(x: 0, y: 0, width: source.storedWidth, height: source.storedHeight))
        #expect(try PageStage.mayHoldLightPrint(advert))
    }

    /// Street signs whose "paper" is a strip of the stone wall behind them (real set 048), and a
    /// licence plate whose paper leaves out its bottom line (077), both stored upright: read on the
    /// whole frame when the paper reads too little.
    @Test(RealSet.trait, arguments: ["048_sign_paris_signs.jpg", "077_sign_alaska_plate.jpg"])
    func textOutsideThePaperFoundIsRead(file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: RealSet.url(file)))
        let decision = try SharedResolver.get().decide(
            imageBytes: bytes, metadata: try ImageMetadata.read(bytes), prior: .rotate270)
        #expect(decision.orientation == .identity, "\(decision)")
    }

    /// A handwritten diagram (real set 007) stored so that it shows upright under orientation
    /// 8 spends the work budget in the coarse look, after its lines had read every candidate: the
    /// budget cut short a later stage, not the comparison, and the clear leader stands. Before,
    /// a candidate starved in the last stage counted as never read, and the answer was undecidable.
    @Test(RealSet.trait) func aCandidateReadInAnEarlierStageIsNotUnreadWhenALaterStageSpendsTheBudget() throws {
        let url = try RealSet.url("007_handwriting_copernicus_diagram.png")
        let shown = try #require(Orientation(exifValue: 8))
        let stored = try Pix.decode([UInt8](Data(contentsOf: url))).oriented(shown.inverse).encodedPNG()
        let decision = try SharedResolver.get().decide(
            imageBytes: stored, metadata: try ImageMetadata.read(stored), prior: nil)
        #expect(decision.orientation == shown, "\(decision)")
        #expect(decision.reason?.contains("work budget spent") == true, "\(decision)")
    }

    /// A mirrored page (real set 043, a poem, shown flipped left to right) is settled by its
    /// mirrored candidates at the first lines: within six reads. Before, the rotations were read
    /// every line deep first, and six reads left the answer undecidable ("work budget spent").
    @Test(RealSet.trait) func aMirroredPageIsReadMirroredAtItsFirstLines() throws {
        let url = try RealSet.url("043_poster_tyger_poem.jpg")
        let shown = Orientation.flipHorizontal
        let stored = try Pix.decode([UInt8](Data(contentsOf: url))).oriented(shown.inverse).encodedPNG()
        let decision = try SharedResolver.get().decide(
            imageBytes: stored, metadata: try ImageMetadata.read(stored), prior: nil,
            budget: WorkBudget(reads: 6, words: 600, pixels: 16_000_000))
        #expect(decision.orientation == shown, "\(decision)")
    }

    /// Decides `file` of the real set (`../shared/real`) stored so that it shows upright under `shown`.
    static func decideReal(_ file: String, shownAs shown: Orientation) throws -> Decision {
        let url = try RealSet.url(file)
        let stored = try Pix.decode([UInt8](Data(contentsOf: url))).oriented(shown.inverse).encodedPNG()
        return try SharedResolver.get().decide(imageBytes: stored, metadata: try ImageMetadata.read(stored), prior: nil)
    }

    /// A warped newspaper sudoku (real set 027) whose grid Tesseract reads as text upside
    /// down (3 at 0.985) and sideways: the classifier, sure of 1 (0.91), leaves the text its
    /// rotation and the two mirrored twins to read, and the answer is right.
    @Test(RealSet.trait, arguments: [Orientation.identity, .rotate180])
    func aSureClassifierLeavesTheTextOnlyItsRotationToRead(shown: Orientation) throws {
        let decision = try Self.decideReal("027_newspaper_sudoku_warped.jpg", shownAs: shown)
        #expect(decision.orientation == shown, "\(decision)")
    }

    /// A Hindi sign shown mirrored (real set 132 as 7), whose lines read nothing in any
    /// candidate: the coarse look reads the classifier's rotation (8, at 0.92) as nothing, and
    /// must still read its mirrored twins, where the sign reads. Answered 8 before it did.
    @Test(RealSet.trait) func aMirroredSignIsReadMirroredThoughTheClassifierNamesItsTwin() throws {
        let decision = try Self.decideReal("132_sign_hindi_metro_direction.jpg", shownAs: .transverse)
        #expect(decision.orientation == .transverse, "\(decision)")
    }

    /// A handwritten will (real set 128) shown as 8, which Tesseract reads as junk in every
    /// candidate while the classifier is sure of 8: its coarse look need only confirm the
    /// classifier's rotation or find a mirror, and reads `classifier.confirmWords` recognition
    /// steps of each candidate rather than `page.maxWordsPerRead` (the paper, then the frame: six
    /// reads of 40-50 steps of junk). The same answer for less work (410 units -> 278 when
    /// measured, session 25).
    @Test(RealSet.trait) func aCoarseLookThatOnlyConfirmsTheClassifierReadsFewSteps() throws {
        let url = try RealSet.url("128_handwriting_french_will_purple_ink.jpg")
        let stored = try Pix.decode([UInt8](Data(contentsOf: url))).oriented(Orientation.rotate270.inverse)
            .encodedPNG()
        let metadata = try ImageMetadata.read(stored)
        let confirming = try SharedResolver.get().trace(imageBytes: stored, metadata: metadata, prior: nil)
        var calibration = Calibration.embedded
        calibration.classifier.confirmWords = calibration.page.maxWordsPerRead
        let readingOn = try Resolver(configuration: ResolverConfiguration(), calibration: calibration)
            .trace(imageBytes: stored, metadata: metadata, prior: nil)
        #expect(confirming.decision.orientation == .rotate270, "\(confirming.decision)")
        #expect(confirming.decision.decidedBy == .classifier, "\(confirming.decision)")
        #expect(readingOn.decision.orientation == .rotate270, "\(readingOn.decision)")
        #expect(confirming.work < readingOn.work - 50, "\(confirming.work) units, \(readingOn.work) reading on")
    }

    /// Graph paper (real set 026): the coarse looks at the paper and at the whole frame read
    /// not one confident word in the likelier pair, and stop there (`PageStage.readsNothing`).
    /// Reading on, the frame's other pair and mirrored twins read one junk word each from the grid
    /// (230 of the file's 385 work units), to the same undecidable answer.
    @Test(RealSet.trait) func aCoarseLookWhoseLikelierPairReadsNothingStopsThere() throws {
        let url = try RealSet.url("026_other_graph_paper.jpg")
        let bytes = [UInt8](try Data(contentsOf: url))
        let trace = try SharedResolver.get().trace(
            imageBytes: bytes, metadata: try ImageMetadata.read(bytes), prior: nil)
        #expect(trace.decision.orientation == nil, "\(trace.decision)")
        #expect(trace.decision.reason?.hasPrefix("no text found") == true, "\(trace.decision)")
        #expect(trace.pageEvidence.count == 2, "read \(trace.pageEvidence.keys.map(\.exifValue).sorted())")
        #expect(trace.pageEvidence.values.allSatisfy { $0.confidentWords == 0 })
    }

    /// A handwritten letter (real set 103) shown as 8: read against the classifier's rotation
    /// alone, Tesseract's junk in its mirrored twin 7 came out at 0.953. A mirrored answer that
    /// does not read as words is read again against every rotation, and the classifier answers.
    @Test(RealSet.trait) func mirroredJunkIsNotAnsweredAgainstTheClassifiersRotationAlone() throws {
        let decision = try Self.decideReal("103_handwriting_family_letter_1879.jpg", shownAs: .rotate270)
        #expect(decision.orientation == .rotate270, "\(decision)")
        #expect(decision.decidedBy == .classifier, "\(decision)")
    }

    @Test(arguments: ResolverSample.all.filter { !$0.decidable })
    func everyHardNegativeIsUndecidableWithAReason(_ sample: ResolverSample) throws {
        let decision = try SharedResolver.decide(sample)
        #expect(decision.orientation == nil, "\(decision)")
        #expect(decision.reason?.isEmpty == false)
    }

    @Test func concurrentCallsGiveTheSameAnswersAsSerialCalls() async throws {
        let samples = ResolverSample.all.filter { $0.kind != "fineprint" }.prefix(10)
        let serial = try samples.map { try SharedResolver.decide($0) }
        let concurrent = try await withThrowingTaskGroup(of: (Int, Decision).self) { group in
            for (i, sample) in samples.enumerated() {
                group.addTask { (i, try SharedResolver.decide(sample)) }
            }
            var out = [Decision?](repeating: nil, count: samples.count)
            for try await (i, d) in group { out[i] = d }
            return out
        }
        for (i, decision) in serial.enumerated() {
            #expect(concurrent[i] == decision, "\(Array(samples)[i].file)")
        }
    }

    @Test func aMissingModelNamesTheFileAndTheDebianPackage() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("docorient-no-models-\(getpid())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        do {
            _ = try Resolver(configuration: ResolverConfiguration(tessdata: empty.path))
            Issue.record("expected .missingModel")
        } catch let error as DocOrientError {
            #expect(error.code == .missingModel)
            #expect(error.message.contains("eng.traineddata not found in \(empty.path)"))
            #expect(
                error.message.contains("install tesseract-ocr-eng, or set the configuration's tessdata")
                    && !error.message.contains("--"))
        }
    }

    @Test func aMissingSecondLanguageNamesItsOwnPackage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("docorient-eng-only-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let resolver = try SharedResolver.get()
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("eng.traineddata").path,
            withDestinationPath: resolver.modelDirectory + "/eng.traineddata")
        #expect {
            try Resolver(configuration: ResolverConfiguration(tessdata: dir.path, languages: "eng+chi_sim"))
        } throws: { error in
            guard let error = error as? DocOrientError else { return false }
            return error.code == .missingModel && error.message.contains("chi_sim.traineddata")
                && error.message.contains("tesseract-ocr-chi-sim")
        }
    }

    @Test func aLanguageListCannotNameAPath() {
        #expect(throws: DocOrientError.self) {
            try Resolver(configuration: ResolverConfiguration(languages: "../../etc/passwd"))
        }
    }

    @Test func anImageOverThePixelLimitIsRefusedBeforeDecoding() throws {
        let sample = try #require(ResolverSample.all.first { $0.decidable })
        let bytes = try sample.bytes()
        let metadata = try ImageMetadata.read(bytes)
        var configuration = ResolverConfiguration()
        configuration.maxPixels = 1_000_000
        let resolver = try Resolver(configuration: configuration)
        #expect {
            try resolver.decide(imageBytes: bytes, metadata: metadata, prior: nil)
        } throws: { ($0 as? DocOrientError)?.code == .limitExceeded }
    }

    @Test(arguments: [
        ("12.34", true), ("$1,234.56", true), ("1.234,56", true), ("0,99", true),
        ("1234", false), ("12.3", false), ("2024", false), ("10:59", false), ("12.345", false), ("1234.56", false),
        ("ab.cd", false), ("S6'0I", false),
    ])
    func amountsAreRecognisedByTheirShape(_ text: String, _ isAmount: Bool) {
        #expect(Evidence.isAmount(text) == isAmount)
    }

    @Test func aPageWinnerWithoutADictionaryWordOrAmountIsUndecidable() throws {
        // What a page of tiny identifiers read upside down gave (0356_pdfpage of the seed-11 set):
        // confident non-words and numbers, and the tag agreeing with it.
        let resolver = try SharedResolver.get()
        let weights = resolver.calibration.scoring
        let garbage = ["yuse", "Tuse", "40110238", "910320238", "202100", "ruse", "tase", "juse", "tae", "qurad"].map {
            RecognizedWord(text: $0, confidence: 92, isFromDictionary: false, isNumeric: $0.first!.isNumber)
        }
        func decide(_ words: [RecognizedWord]) -> Decision {
            let read: [Orientation: Evidence] = [
                .rotate270: Evidence(words: words, weights: weights), .rotate90: Evidence(),
            ]
            return resolver.rules.conclude(
                evidence: { read[$0] ?? Evidence() }, [.rotate270, .rotate90],
                minScore: resolver.calibration.page.minScore,
                minPlainWords: resolver.calibration.page.minPlainWords, prior: .rotate270, note: "read the whole page")
        }
        let undecided = decide(garbage)
        #expect(undecided.orientation == nil)
        #expect(undecided.reason?.contains("dictionary word") == true, "\(undecided.reason ?? "")")
        // One real word among them and the same evidence decides.
        let decided = decide(
            garbage + [RecognizedWord(text: "Function", confidence: 92, isFromDictionary: true, isNumeric: false)])
        #expect(decided.orientation == .rotate270)
    }

    /// Words read as plain text at `confidence`.
    static func words(_ texts: String..., confidence: Double = 95) -> [RecognizedWord] {
        texts.map { RecognizedWord(text: $0, confidence: confidence, isFromDictionary: true, isNumeric: false) }
    }

    @Test func aWordReadByManyStagesCountsOnce() throws {
        let weights = try SharedResolver.get().calibration.scoring
        let line = Evidence(words: Self.words("Shopping", "list"), weights: weights)
        let look = Evidence(words: Self.words("SHOPPING", "Bread", confidence: 80), weights: weights)
        let both = line.adding(look).distinct
        // "Shopping" once, at its more confident reading, and "list" and "Bread".
        #expect(both.confidentWords == 3)
        #expect(both.dictionaryWords == 3)
        let expected = Evidence(
            words: Self.words("Shopping", "list") + Self.words("Bread", confidence: 80), weights: weights)
        #expect(abs(both.score(weights) - expected.score(weights)) < 1e-9)
    }

    @Test func theStagesTogetherDecideWhatNoneReadEnoughOf() throws {
        let resolver = try SharedResolver.get()
        let weights = resolver.calibration.scoring
        // A handwritten list: the lines read its heading, the coarse look two items; each is two
        // words, too few alone (`DecisionRules.minConfidentWords`).
        let heading = Evidence(words: Self.words("Shopping", "list"), weights: weights)
        let items = Evidence(words: Self.words("Bread", "Eggs"), weights: weights)
        let clutter = Evidence(words: Self.words("ee"), weights: weights)
        let together = resolver.rules.concludeTogether(
            [.identity: heading.adding(items), .rotate180: clutter], prior: .rotate90)
        #expect(together.orientation == .identity, "\(together)")
    }

    @Test func aCoupleOfWordsReadByEveryStageStaysUndecidable() throws {
        let resolver = try SharedResolver.get()
        let weights = resolver.calibration.scoring
        // A two-word sign read by the lines, the windows and the coarse look alike is still two words.
        let sign = Evidence(words: Self.words("PRIVATE", "PROPERTY"), weights: weights)
        let decision = resolver.rules.concludeTogether([.identity: sign.adding(sign).adding(sign)], prior: nil)
        #expect(decision.orientation == nil, "\(decision)")
    }

    @Test func theStagesTogetherNeedAClearLeader() throws {
        let resolver = try SharedResolver.get()
        let weights = resolver.calibration.scoring
        // Confident words in two orientations, a little more in one: each stage's clutter adds up
        // in every candidate, and the likeliest clutter must not win.
        let more = Evidence(words: Self.words("Tease", "nose", "ones", "else"), weights: weights)
        let fewer = Evidence(words: Self.words("sale", "lose", "nest"), weights: weights)
        let decision = resolver.rules.concludeTogether([.identity: more, .rotate180: fewer], prior: nil)
        #expect(decision.orientation == nil, "\(decision)")
    }

    /// A grey scene of `width` x `height` at `background`, with `(box, level)` rectangles painted in order.
    static func scene(_ width: Int, _ height: Int, background: UInt8, _ rects: [(PixelBox, UInt8)]) throws -> Pix {
        var pixels = [UInt8](repeating: background, count: width * height)
        for (box, level) in rects {
            for y in box.y..<box.maxY { for x in box.x..<box.maxX { pixels[y * width + x] = level } }
        }
        return try Pix.gray(Raster(width: width, height: height, pixels: pixels))
    }

    @Test func greyPixelsKeepTheirPlacesInLeptonica() throws {
        // An odd width, so rows end inside a 32-bit word.
        let (w, h) = (13, 5)
        let pixels = (0..<(w * h)).map { UInt8(($0 % w) * 17 + ($0 / w) * 3) }
        let pix = try Pix.gray(Raster(width: w, height: h, pixels: pixels))
        for y in 0..<h {
            for x in 0..<w { #expect(pix.value(x: x, y: y) == UInt32(pixels[y * w + x]), "pixel \(x),\(y)") }
        }
    }

    @Test func thePaperIsTheBrightestRegionNotALargerLightStreakOfTheTable() throws {
        // Dark wood with a broad light streak across the top; a small white receipt below it.
        let receipt = PixelBox(x: 150, y: 230, width: 80, height: 150)
        let scene = try Self.scene(
            400, 400, background: 60,
            [
                (PixelBox(x: 0, y: 20, width: 400, height: 160), 130), (receipt, 215),
            ])
        let paper = try #require(try AnalysisImage.paper(in: scene))
        #expect(
            paper.x <= receipt.x && paper.maxX >= receipt.maxX && paper.y <= receipt.y && paper.maxY >= receipt.maxY)
        #expect(paper.area < 2 * receipt.area, "\(paper) should be the receipt, not the streak")
    }

    @Test func aStripOfPaperAFewHundredthsOfTheFrameIsThePaper() throws {
        // A mid-grey table, lighter on its left half; a white strip of paper, a few hundredths of the frame.
        let strip = PixelBox(x: 300, y: 60, width: 24, height: 200)
        let scene = try Self.scene(
            400, 400, background: 90, [(PixelBox(x: 0, y: 0, width: 200, height: 400), 140), (strip, 230)])
        let paper = try #require(try AnalysisImage.paper(in: scene))
        #expect(
            paper.x <= strip.x && paper.maxX >= strip.maxX && paper.y <= strip.y && paper.maxY >= strip.maxY,
            "\(paper) should hold the strip")
        #expect(paper.area < 2 * strip.area, "\(paper) should be the strip, not the table's lit half")
    }

    @Test func aFramedBoxOnThePageIsPartOfThePaper() throws {
        // A white page on a dark table, with a dark frame line around a white box near its top.
        let page = PixelBox(x: 60, y: 40, width: 280, height: 330)
        let scene = try Self.scene(
            400, 400, background: 50,
            [
                (page, 210), (PixelBox(x: 80, y: 60, width: 240, height: 120), 40),
                (PixelBox(x: 83, y: 63, width: 234, height: 114), 230),
            ])
        let paper = try #require(try AnalysisImage.paper(in: scene))
        #expect(
            paper.x <= page.x && paper.maxX >= page.maxX && paper.y <= page.y && paper.maxY >= page.maxY,
            "\(paper) should hold the whole page")
    }

    @Test func theEmbeddedCalibrationIsModelsCalibrationJSON() throws {
        let url = ResolverSample.corpus.deletingLastPathComponent().appendingPathComponent("Models/calibration.json")
        let decoded = try JSONDecoder().decode(Calibration.self, from: Data(contentsOf: url))
        #expect(decoded == Calibration.embedded, "run python3 Models/embed.py after editing Models/calibration.json")
    }
}

/// The tests that read `../shared/real`: they run where it is beside the checkout, and in CI (where
/// its absence fails them); elsewhere they are skipped, saying so.
enum RealSet {
    static let isHere = FileManager.default.fileExists(atPath: ResolverSample.realSet.path)
    static let runs = isHere || ProcessInfo.processInfo.environment["CI"] != nil
    static let trait = ConditionTrait.enabled(
        if: runs, "\(ResolverSample.realSet.path) not found: shared/ is not beside this clone")

    /// The file of the real set named `file`.
    static func url(_ file: String) throws -> URL {
        try #require(isHere, "\(ResolverSample.realSet.path) is missing: CI lays shared/ beside the clone")
        return ResolverSample.realSet.appendingPathComponent(file)
    }
}
