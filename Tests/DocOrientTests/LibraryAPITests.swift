import Foundation
import Testing

@testable import DocOrient

/// The library as an ingest service uses it: async calls that can be cancelled, a cap on engines,
/// a work budget that gives the same answer every time, and bytes in any `DataProtocol`.
struct LibraryAPITests {
    static func sample(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.samples.appendingPathComponent(name))
    }

    @Test func aCancelledCallThrowsCancellationErrorPromptlyAndFreesItsEngine() async throws {
        var configuration = ResolverConfiguration()
        configuration.maxEngines = 1
        let fixer = Fixer(resolver: try Resolver(configuration: configuration))
        // 0014_letter (mirrored) reads windows in eight orientations, about a second of OCR: long
        // enough to be cancelled in the middle.
        let upload = try Self.sample("0014_letter.jpg")
        let task = Task { try await fixer.resolve(upload) }
        // Cancel from a thread of its own as soon as the call holds the engine (an event, not a
        // delay: on a fast machine a delay could outlast the work): other tests may keep Swift's
        // cooperative threads busy, and the cancel must land mid-work.
        let pool = fixer.resolver.pool
        DispatchQueue.global().async {
            for _ in 0..<2000 where pool.idleCount > 0 { usleep(5000) }
            task.cancel()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        // The one engine is free again: the next call gets it and answers.
        let next = try await fixer.resolve(try Self.sample("0003_letter.jpg"))
        #expect(next.decision.orientation == .rotate270)
        #expect(fixer.resolver.pool.engineCount == 1)
    }

    @Test func aTaskCancelledBeforeTheCallDoesNoWork() async throws {
        let fixer = Fixer(resolver: try SharedResolver.get())
        let upload = try Self.sample("0003_letter.jpg")
        let task = Task {
            try await Task.sleep(for: .milliseconds(50))
            return try await fixer.fix(upload)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func concurrentCallsShareAtMostMaxEnginesAndAgreeWithSerialCalls() async throws {
        var configuration = ResolverConfiguration()
        configuration.maxEngines = 2
        // Sharing, not timing: on a loaded machine the serial pass can leave the classifier idle
        // past the default timeout, and an engine freed so is made again (`idleEnginesAreFreed`).
        configuration.engineIdleTimeout = .seconds(3600)
        let fixer = Fixer(resolver: try Resolver(configuration: configuration))
        let names = [
            "0000_receipt.jpg", "0003_letter.jpg", "0007_invoice.jpg", "0011_pdfpage.jpg", "0014_letter.jpg",
            "0017_blank.jpg",
        ]
        let uploads = try names.map { try Self.sample($0) }
        let serial = try uploads.map { try fixer.resolve($0).decision }
        let concurrent = try await withThrowingTaskGroup(of: (Int, Decision).self) { group in
            for (i, upload) in uploads.enumerated() {
                group.addTask { (i, try await fixer.resolve(upload).decision) }
            }
            return try await group.reduce(into: [Int: Decision]()) { $0[$1.0] = $1.1 }
        }
        for i in uploads.indices {
            #expect(concurrent[i]?.orientation == serial[i].orientation, "\(names[i])")
            #expect(concurrent[i]?.confidence == serial[i].confidence, "\(names[i])")
        }
        #expect(fixer.resolver.pool.engineCount <= 2)
        #expect(fixer.resolver.classifier.enginesMade == 1, "one classifier for every call")
    }

    /// An engine idle for the timeout is freed, and the next call loads one again. Told by events
    /// (engines made, engines alive), never by how fast this machine is: under load the warmed-up
    /// engine may already be gone when the first check runs.
    @Test func idleEnginesAreFreed() async throws {
        var configuration = ResolverConfiguration()
        configuration.engineIdleTimeout = .milliseconds(100)
        let resolver = try Resolver(configuration: configuration)
        #expect(resolver.pool.enginesMade == 1, "warmed up")
        #expect(resolver.classifier.enginesMade == 1, "warmed up")
        var waited = Duration.zero
        while resolver.pool.engineCount + resolver.classifier.engineCount > 0, waited < .seconds(60) {
            try await Task.sleep(for: .milliseconds(50))
            waited += .milliseconds(50)
        }
        #expect(resolver.pool.engineCount == 0, "freed after \(waited)")
        #expect(resolver.classifier.engineCount == 0, "freed after \(waited)")
        _ = try resolver.decide(try Self.sample("0003_letter.jpg"))
        #expect(resolver.pool.enginesMade == 2, "the next call loaded one again")
        #expect(resolver.classifier.enginesMade == 2, "the next call loaded it again")
    }

    @Test func aSpentBudgetAnswersFromWhatWasReadOrSaysSoAndTheSameEveryTime() throws {
        let fixer = Fixer(resolver: try SharedResolver.get())
        let oneRead = WorkBudget(reads: 1, words: 10_000, pixels: 100_000_000)
        var limited = 0
        for sample in ResolverSample.all where sample.decidable {
            let upload = try Data(sample.bytes())
            let first = try fixer.resolve(upload, budget: oneRead).decision
            let second = try fixer.resolve(upload, budget: oneRead).decision
            #expect(first == second, "\(sample.file)")
            if first.reason?.contains("work budget spent (reads: 1 read") == true {
                limited += 1
                // Decided only when every candidate it asked for was read.
                if let answer = first.orientation { #expect(answer.exifValue == sample.upright, "\(sample.file)") }
            } else {
                // One read settled it, as it does without a budget.
                #expect(first == (try fixer.resolve(upload).decision), "\(sample.file)")
            }
        }
        #expect(limited >= 5, "most samples need more than one read")
        let none = WorkBudget(reads: 0, words: 0, pixels: 0)
        let starved = try fixer.resolve(try Self.sample("0003_letter.jpg"), budget: none).decision
        #expect(starved.orientation == nil)
        #expect(starved.reason?.hasPrefix("work budget spent") == true, "\(starved.reason ?? "")")
    }

    /// A read stops at the text lines its crop can hold. Tesseract's progress callback, which
    /// the work meter counts, comes once per text line; letters are scaled to at least
    /// `minTextHeight` before reading, so a crop `h` pixels high holds at most `h / minTextHeight`
    /// lines of them, and a read that finds more is reading noise as lines. Here, a window part
    /// of blank receipt paper as the reader sees it (light corrected at reading size; from
    /// 0361_receipt of the seed-23 set, Tests/Fixtures/paper-grain-window.png): unbounded,
    /// Tesseract finds more lines of grain than the cap; bounded, it stops at the cap.
    @Test func aReadStopsAtTheLinesItsCropCanHold() throws {
        let resolver = try SharedResolver.get()
        let url = Fixtures.repoRoot.appendingPathComponent("Tests/Fixtures/paper-grain-window.png")
        let grain = try Pix.decode([UInt8](try Data(contentsOf: url)))
        grain.setResolution(300)
        let height = grain.height
        let cap = CandidateReader.maxLines(height: height, minTextHeight: resolver.calibration.analysis.minTextHeight)
        func lines(maxLines: Int) throws -> Int {
            let meter = WorkMeter(budget: .unlimited)
            try resolver.pool.withEngine { engine in
                _ = try engine.recognize(grain, mode: PageSegmentation.singleBlock, meter: meter, maxWords: maxLines)
            }
            return meter.words
        }
        let unbounded = try lines(maxLines: .max)
        #expect(unbounded > cap, "the premise: \(unbounded) lines found, cap \(cap)")
        #expect(try lines(maxLines: cap) <= cap)
    }

    /// Work units are charged by what a read goes through: a block read's every pixel, a laid-out
    /// page's pixels at a fifth of the rate, a unit per word; a read the work left cannot pay for
    /// is not made, and one that starts may recognise only the words left.
    @Test func workUnitsChargePixelsByHowTheyAreReadAndWordsOneEach() throws {
        #expect(WorkCost.units(pixels: 60_000, reading: .block) == 6)
        #expect(WorkCost.units(pixels: 60_001, reading: .block) == 7)
        #expect(WorkCost.units(pixels: 2_500_000, reading: .laidOut) == 50)
        let meter = WorkMeter(budget: WorkBudget(reads: 100, words: 1_000, pixels: 100_000_000, work: 60))
        #expect(try meter.beginRecognition(pixels: 100_000, reading: .block, maxWords: 500) == 50)
        meter.endRecognition(words: 30)
        #expect(meter.work == 40)
        #expect(meter.exhaustedPart == nil)
        // 25 units of pixels do not fit in the 20 left: not read, and the reason is the work.
        #expect(throws: WorkMeter.Exhausted.self) {
            try meter.beginRecognition(pixels: 1_250_000, reading: .laidOut, maxWords: 500)
        }
        #expect(meter.exhaustedPart == "work")
        #expect(meter.reads == 1)
        #expect(meter.summary.hasSuffix("40 work units"))
    }

    /// Decoding and the classifier's passes are work too: charged before any read, they leave
    /// less for Tesseract, and a budget they use up leaves none.
    @Test func decodingAndTheClassifiersPassesAreChargedAsWork() throws {
        #expect(WorkCost.decodeUnits(pixels: 12_000_000) == 12)
        #expect(WorkCost.decodeUnits(pixels: 1) == 1)
        let meter = WorkMeter(budget: WorkBudget(reads: 100, words: 1_000, pixels: 100_000_000, work: 30))
        meter.charge(WorkCost.decodeUnits(pixels: 12_000_000) + 6 * WorkCost.classifierSquareUnits)
        #expect(meter.work == 18 && meter.exhaustedPart == nil && meter.reads == 0)
        // 12 units of pixels do not fit in the 12 left.
        #expect(throws: WorkMeter.Exhausted.self) {
            try meter.beginRecognition(pixels: 120_000, reading: .block, maxWords: 500)
        }
        #expect(meter.exhaustedPart == "work")
        let small = WorkMeter(budget: WorkBudget(reads: 100, words: 1_000, pixels: 100_000_000, work: 10))
        small.charge(WorkCost.decodeUnits(pixels: 12_000_000))
        #expect(small.exhaustedPart == "work" && small.work == 12)
    }

    /// A small work budget binds on real reads: it stops the same files at the same place every
    /// time, names the work in its reason, and never lets an answer through that a candidate it
    /// asked for went unread to reach.
    @Test func aSmallWorkBudgetStopsTheSameWayEveryTime() throws {
        let fixer = Fixer(resolver: try SharedResolver.get())
        let little = WorkBudget(reads: 1_000, words: 100_000, pixels: 1_000_000_000, work: 15)
        var limited = 0
        for sample in ResolverSample.all where sample.decidable {
            let upload = try Data(sample.bytes())
            let first = try fixer.resolve(upload, budget: little).decision
            #expect(first == (try fixer.resolve(upload, budget: little).decision), "\(sample.file)")
            if first.reason?.contains("work budget spent (work:") == true {
                limited += 1
                if let answer = first.orientation { #expect(answer.exifValue == sample.upright, "\(sample.file)") }
            }
        }
        #expect(limited >= 5, "most samples need more than 15 units")
    }

    /// The budget binds (a page that reads nothing stops early, and its reason says so), but it
    /// never changes an answer: each sample resolves to what an unlimited budget gives, or is
    /// undecidable with a reason naming the budget (0035_handnote, whose handwriting only the
    /// coarse look of the whole page reads, after more than the standard work).
    @Test func theStandardBudgetChangesNoAnswerOnTheSamples() throws {
        let fixer = Fixer(resolver: try SharedResolver.get())
        var cutShort: [String] = []
        defer { #expect(cutShort.count <= 1, "cut short by the budget: \(cutShort)") }
        for sample in ResolverSample.all {
            let upload = try Data(sample.bytes())
            let standard = try fixer.resolve(upload).decision
            let unlimited = try fixer.resolve(upload, budget: .unlimited).decision
            if standard.orientation == nil, unlimited.orientation != nil,
                standard.reason?.hasPrefix("work budget spent") == true
            {
                cutShort.append(sample.file)
                continue
            }
            #expect(standard.orientation == unlimited.orientation, "\(sample.file): \(standard) against \(unlimited)")
        }
    }

    @Test func bytesMayComeAsDataArraysOrSlices() throws {
        let fixer = Fixer(resolver: try SharedResolver.get())
        let data = try Self.sample("0003_letter.jpg")
        let fromData = try fixer.resolve(data).decision
        let fromArray = try fixer.resolve([UInt8](data)).decision
        let fromSlice = try fixer.resolve(data[data.startIndex..<data.endIndex]).decision
        #expect(fromData == fromArray && fromArray == fromSlice)
    }

    @Test func anInMemoryFixFailsWithATypedErrorAndRefusesADestination() throws {
        let fixer = Fixer(resolver: try SharedResolver.get())
        #expect {
            _ = try fixer.fix(Data("GIF89a".utf8))
        } throws: { ($0 as? DocOrientError)?.code == .unsupportedFormat }
        let letter = try Self.sample("0003_letter.jpg")
        #expect {
            _ = try fixer.fix(letter, options: FixOptions(destination: .directory("/tmp")))
        } throws: { ($0 as? DocOrientError)?.code == .invalidRequest }
        let fixed = try fixer.fix(letter)
        #expect(fixed.record.path == nil)
        #expect(fixed.record.jsonLine.contains("\"path\":null"))
    }

    @Test func aMissingFileFailsWithATypedErrorNamingIt() throws {
        let fixer = Fixer(resolver: try SharedResolver.get())
        let url = URL(fileURLWithPath: "/nonexistent/receipt.jpg")
        #expect {
            _ = try fixer.fix(contentsOf: url)
        } throws: { ($0 as? DocOrientError)?.code == .io && ($0 as? DocOrientError)?.path == url.path }
    }
}
