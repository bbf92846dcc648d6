// Scanned PDFs: each page's image decided as a photo is, and the page turned by its /Rotate, the
// one thing a viewer turns a page by that touches no stream.

/// What changes on one page to show its image as decided (by `fix`) or chosen (by a person on the
/// review page, `Reorientation.change(page:showing:in:)`): its /Rotate and, for a mirror, the
/// transform drawn around its content.
struct PDFPageChange: CustomStringConvertible {
    /// The page (0-based).
    var index: Int
    /// The orientation the page will show its image in.
    var target: Orientation
    var rotation: Orientation
    /// The mirroring `cm` matrix (`PDFTurn.mirrorMatrix`), nil for none.
    var mirrorMatrix: [Double]?

    /// The record's reason: "/Rotate 90", or "/Rotate 90 and the content drawn mirrored (q -1 0 0 1 612 0 cm ... Q)".
    var description: String {
        let rotate = "/Rotate \(rotation.degreesClockwise)"
        guard let m = mirrorMatrix else { return rotate }
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        return "\(rotate) and the content drawn mirrored (q \(m.map(number).joined(separator: " ")) cm ... Q)"
    }

    /// What shows page `index` (described as `content`, shown as `placement` says) as `target`:
    /// a new /Rotate and, when /Rotate alone cannot (a mirror), a mirror drawn around the page's
    /// content. A mirror that stream cannot reach (annotations), that the page's own content
    /// would undo, or that has no box to mirror about leaves the page alone: the reason starts
    /// with `mirrored`, what the page would be mirrored from and to.
    static func planned(
        _ index: Int, content: PDFPageContent, placement: PDFPlacement, target: Orientation, mirrored: String
    ) -> PDFPageReading<PDFPageChange> {
        let turn = placement.turn(showing: target)
        guard let mirror = turn.mirror else {
            return .read(PDFPageChange(index: index, target: target, rotation: turn.rotation, mirrorMatrix: nil))
        }
        if content.annotations > 0 {
            return .leftAlone(
                "\(mirrored), and its \(content.annotations) annotation(s) would not be mirrored with its content: "
                    + "left alone"
            )
        }
        if content.unbalancedRestores > 0 {
            return .leftAlone(
                "\(mirrored), and its content restores graphics states it did not save, which would undo a mirror "
                    + "around it: left alone"
            )
        }
        guard let matrix = PDFTurn.mirrorMatrix(mirror, mediaBox: content.mediaBox, cropBox: content.cropBox) else {
            return .leftAlone(
                "\(mirrored), and it has no media box (or its crop box lies outside it) to mirror about: left alone")
        }
        return .read(PDFPageChange(index: index, target: target, rotation: turn.rotation, mirrorMatrix: matrix))
    }

    /// The PDF `document` with every change in `changes` made, as bytes: each page's /Rotate
    /// written (and a mirror drawn around its content where asked), no other stream touched.
    /// - Throws: `DocOrientError` when qpdf cannot write it, or when what it wrote does not read
    ///   back as the same pages, each changed one showing its image as planned; nothing is
    ///   written then.
    static func written(_ changes: [PDFPageChange], to document: borrowing PDFDocument) throws -> [UInt8] {
        for change in changes {
            try document.setRotate(page: change.index, degrees: change.rotation.degreesClockwise)
            if let matrix = change.mirrorMatrix {
                try document.transformContents(page: change.index, matrix: matrix)
            }
        }
        let output = try document.written()
        let check = try PDFDocument(bytes: output, maxPages: PDFPages.maxPages)
        guard check.pageCount == document.pageCount else {
            throw DocOrientError(.library, "qpdf wrote \(check.pageCount) pages for \(document.pageCount)")
        }
        for change in changes {
            let page = try check.describePage(change.index, maxContentBytes: PDFPages.maxContentBytes)
            guard case .read(let placement) = PDFPageImage.placement(of: page), placement.shown == change.target
            else {
                throw DocOrientError(
                    .library, "page \(change.index + 1) does not read back as turned; nothing was written")
            }
        }
        return output
    }
}

extension Fixer {
    /// Decides every page of the PDF in `bytes` and, unless `options.dryRun`, writes the /Rotate
    /// of each page the text says is shown turned (and, for a page that reads mirrored, a mirror
    /// drawn around its content); the file's record holds one record per page.
    /// - Throws: `DocOrientError` when the PDF as a whole cannot be read or written (`.encrypted`,
    ///   `.malformed`, `.limitExceeded`); a page that cannot be read fails alone, in its record.
    func fixPDF(
        bytes: [UInt8], options: FixOptions, budget: WorkBudget?, signal: CancellationSignal?
    ) throws
        -> FixedImage
    {
        let clock = ContinuousClock.now
        let document = try PDFDocument(bytes: bytes, maxPages: PDFPages.maxPages)
        return try fixPages(
            document.pageCount, of: bytes, started: clock, options: options, signal: signal,
            decide: { index, record in
                try decidePage(index, of: document, into: &record, budget: budget, signal: signal).map {
                    (change: $0, reason: $0.description)
                }
            },
            write: { changes in try PDFPageChange.written(changes, to: document) })
    }

    /// Each of `count` pages of the file `bytes` decided in turn into a record of its own (its
    /// number, what is done, its time), a page that cannot be read failing alone in its record;
    /// then, unless `options.dryRun`, every page's change written at once (`write`), and the
    /// file's record summing the pages' (`summary`). The PDF's and the multi-page TIFF's fix.
    /// `decide` fills a page's record and returns its change and the reason given for it, nil
    /// where the page stays as it is.
    func fixPages<Change>(
        _ count: Int, of bytes: [UInt8], started clock: ContinuousClock.Instant, options: FixOptions,
        signal: CancellationSignal?, decide: (Int, inout FixRecord) throws -> (change: Change, reason: String)?,
        write: ([Change]) throws -> [UInt8]
    ) throws -> FixedImage {
        var pages: [FixRecord] = []
        var changes: [Change] = []
        for index in 0..<count {
            if signal?.isCancelled == true { throw CancellationError() }
            let pageClock = ContinuousClock.now
            var record = FixRecord(path: nil)
            record.page = index + 1
            do {
                if let decided = try decide(index, &record) {
                    changes.append(decided.change)
                    record.action = options.dryRun ? .wouldRewriteTag : .tagRewritten
                    record.reason = decided.reason
                }
            } catch let error as DocOrientError {
                record.fail(error)
            }
            record.elapsedMilliseconds = pageClock.duration(to: .now).milliseconds
            pages.append(record)
        }
        let output = !options.dryRun && !changes.isEmpty ? try write(changes) : bytes
        var record = Self.summary(of: pages)
        record.elapsedMilliseconds = clock.duration(to: .now).milliseconds
        return FixedImage(bytes: output, record: record)
    }

    /// Decides page `index`: fills `record` and returns what turns the page upright, nil when
    /// it stays as it is (upright already, or undecidable).
    private func decidePage(
        _ index: Int, of document: borrowing PDFDocument, into record: inout FixRecord, budget: WorkBudget?,
        signal: CancellationSignal?
    ) throws -> PDFPageChange? {
        let content = try document.describePage(index, maxContentBytes: PDFPages.maxContentBytes)
        func leave(_ reason: String) -> PDFPageChange? {
            record.verdict = .undecidable
            record.reason = reason
            return nil
        }
        let placement: PDFPlacement
        switch PDFPageImage.placement(of: content) {
        case .leftAlone(let reason): return leave(reason)
        case .read(let placed): placement = placed
        }
        record.exifOrientation = placement.shown.exifValue
        let image: [UInt8]
        switch try PDFPageImage.jpeg(
            of: content, page: index, in: document, maxPixels: resolver.configuration.maxPixels)
        {
        case .leftAlone(let reason): return leave(reason)
        case .read(let jpeg): image = jpeg
        }
        let metadata: ImageMetadata
        do {
            metadata = try ImageMetadata.read(image)
        } catch let error as DocOrientError {
            throw DocOrientError(
                .malformed, "the page's JPEG image cannot be read: \(error.message)", cause: error.cause)
        }
        // Inside a PDF, the JPEG's own EXIF tag turns nothing: what the page shows is the prior.
        let decision = try resolver.decide(
            imageBytes: image, metadata: metadata, prior: placement.shown, budget: budget, signal: signal)
        record.take(original: placement.shown, decision: decision)
        guard let target = decision.orientation, target != placement.shown else { return nil }
        let mirrored = "the page reads mirrored (shown as \(placement.shown.exifValue), upright as \(target.exifValue))"
        switch PDFPageChange.planned(index, content: content, placement: placement, target: target, mirrored: mirrored)
        {
        case .read(let change): return change
        case .leftAlone(let reason): return leave(reason)
        }
    }

    /// The PDF's own record: what its pages' records add up to.
    static func summary(of pages: [FixRecord]) -> FixRecord {
        var record = FixRecord(path: nil)
        record.pages = pages
        let verdicts = pages.map(\.verdict)
        if verdicts.contains(.disagrees) {
            record.verdict = .disagrees
        } else if verdicts.contains(.agrees) || verdicts.contains(.noTag) {
            record.verdict = .agrees
        } else if !verdicts.isEmpty, verdicts.allSatisfy({ $0 == .error }) {
            record.verdict = .error
        } else {
            record.verdict = .undecidable
        }
        let actions = pages.map(\.action)
        if actions.contains(.tagRewritten) {
            record.action = .tagRewritten
        } else if actions.contains(.wouldRewriteTag) {
            record.action = .wouldRewriteTag
        }
        let decided = pages.filter { $0.detectedOrientation != nil }
        record.confidence = decided.map(\.confidence).min() ?? 0
        record.margin = decided.map(\.margin).min() ?? 0
        func count(_ n: Int, _ what: String) -> String? { n > 0 ? "\(n) \(what)" : nil }
        let turned = pages.filter { $0.action == .tagRewritten || $0.action == .wouldRewriteTag }.count
        let parts = [
            count(pages.filter { $0.verdict == .agrees || $0.verdict == .noTag }.count, "upright"),
            count(turned, actions.contains(.wouldRewriteTag) ? "to turn" : "turned"),
            count(pages.filter { $0.verdict == .undecidable }.count, "undecidable"),
            count(pages.filter { $0.verdict == .error }.count, "failed"),
        ].compactMap { $0 }
        let summary =
            "\(pages.count) page\(pages.count == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": ")
            + parts.joined(separator: ", ")
        if record.verdict == .error {
            // Page 1's failure, with the pages counted before it.
            let first = pages[0].error ?? DocOrientError(.library, "failed")
            record.fail(DocOrientError(first.code, "\(summary); page 1: \(first.message)", cause: first.cause))
        } else {
            record.reason = summary
        }
        return record
    }
}
