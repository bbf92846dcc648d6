// Scanned PDFs: each page's image decided as a photo is, and the page turned by its /Rotate, the
// one thing a viewer turns a page by that touches no stream.

/// The bounds a PDF is read within, and how one is recognised.
enum PDFPages {
    /// Most pages docorient reads in one PDF (checked on the page tree's /Count before it is walked).
    static let maxPages = 10_000
    /// Most bytes one page's content streams may decode to (a scanned page's are a few hundred).
    static let maxContentBytes = 64 << 20
    /// Bytes a page image's decoded samples may exceed their dimensions by (a trailing newline
    /// or a filter's padding) before the decoding is stopped as a bomb.
    static let sampleSlackBytes = 64 << 10
    /// Least share of the area of all images a page paints that its largest must cover to be
    /// the page's image: a scan with a logo stamped on it is still a scan; a collage is not.
    static let minDominantShare = 0.5

    /// Whether `bytes` are a PDF: the header `%PDF-` within the first 1024 bytes, where readers look.
    static func isPDF(_ bytes: [UInt8]) -> Bool {
        let header = Array("%PDF-".utf8)
        let end = min(bytes.count, 1024) - header.count
        guard end >= 0 else { return false }
        return (0...end).contains { Bytes.hasPrefix(bytes, header, at: $0) }
    }
}

extension Fixer {
    /// Decides every page of the PDF in `bytes` and, unless `options.dryRun`, writes the /Rotate
    /// of each page the text says is shown turned; the file's record holds one record per page.
    /// - Throws: `DocOrientError` when the PDF as a whole cannot be read or written (`.encrypted`,
    ///   `.malformed`, `.limitExceeded`); a page that cannot be read fails alone, in its record.
    func fixPDF(
        bytes: [UInt8], options: FixOptions, budget: WorkBudget?, signal: CancellationSignal?
    ) throws
        -> FixedImage
    {
        let clock = ContinuousClock.now
        let document = try PDFDocument(bytes: bytes, maxPages: PDFPages.maxPages)
        var pages: [FixRecord] = []
        var turns: [(index: Int, degrees: Int)] = []
        for index in 0..<document.pageCount {
            if signal?.isCancelled == true { throw CancellationError() }
            let pageClock = ContinuousClock.now
            var record = FixRecord(path: nil)
            record.page = index + 1
            do {
                if let degrees = try decidePage(index, of: document, into: &record, budget: budget, signal: signal) {
                    turns.append((index, degrees))
                    record.action = options.dryRun ? .wouldRewriteTag : .tagRewritten
                    record.reason = "/Rotate \(degrees)"
                }
            } catch let error as DocOrientError {
                record.fail(error)
            }
            record.elapsedMilliseconds = pageClock.duration(to: .now).milliseconds
            pages.append(record)
        }
        var output = bytes
        if !options.dryRun, !turns.isEmpty {
            for turn in turns { try document.setRotate(page: turn.index, degrees: turn.degrees) }
            output = try document.written()
            // What is written must read back as the same pages, or nothing is written.
            let check = try PDFDocument(bytes: output, maxPages: PDFPages.maxPages)
            guard check.pageCount == document.pageCount else {
                throw DocOrientError(.library, "qpdf wrote \(check.pageCount) pages for \(document.pageCount)")
            }
        }
        var record = Self.summary(of: pages)
        record.elapsedMilliseconds = clock.duration(to: .now).milliseconds
        return FixedImage(bytes: output, record: record)
    }

    /// Decides page `index`: fills `record` and returns the page's new /Rotate in degrees, nil
    /// when it stays as it is (upright already, undecidable, or a mirror).
    private func decidePage(
        _ index: Int, of document: borrowing PDFDocument, into record: inout FixRecord, budget: WorkBudget?,
        signal: CancellationSignal?
    ) throws -> Int? {
        let content = try document.describePage(index, maxContentBytes: PDFPages.maxContentBytes)
        func leave(_ reason: String) -> Int? {
            record.verdict = .undecidable
            record.reason = reason
            return nil
        }
        let placement: PDFPlacement
        switch Self.placement(of: content) {
        case .found(let found): placement = found
        case .leftAlone(let reason): return leave(reason)
        }
        record.exifOrientation = placement.shown.exifValue
        try Self.checkSize(of: content, maxPixels: resolver.configuration.maxPixels)
        let image: [UInt8]
        switch try Self.jpeg(ofPage: index, content, in: document) {
        case .found(let jpeg): image = jpeg
        case .leftAlone(let reason): return leave(reason)
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
        guard let turn = placement.rotation(showing: target) else {
            return leave(
                "the page reads mirrored (\(target.exifValue)), and a mirror cannot be expressed by /Rotate: left alone"
            )
        }
        return turn.degreesClockwise
    }

    /// What a step of reading a page found, or why docorient leaves the page alone (the page's
    /// record then says so, as undecidable).
    private enum PageFinding<Value> {
        case found(Value)
        case leftAlone(String)
    }

    /// How the page shows its one dominant image: the content stream's placement, then /Rotate.
    private static func placement(of content: PDFPageContent) -> PageFinding<PDFPlacement> {
        guard content.rotateIsInteger, let rotation = PDFPlacement.rotation(degrees: content.rotate) else {
            return .leftAlone("the page's /Rotate is not a multiple of 90: left alone")
        }
        guard let matrix = content.matrix else {
            if content.forms > 0 {
                return .leftAlone(
                    "the page draws through form XObjects, which docorient does not look into: left alone")
            }
            if content.images > 0 { return .leftAlone("the page's only images are inline images: left alone") }
            return .leftAlone("the page shows no image (text or drawings): left alone")
        }
        guard content.dominantShare >= PDFPages.minDominantShare else {
            return .leftAlone("the page paints \(content.images) images, none over half of their area: left alone")
        }
        guard let placed = PDFPlacement.placement(ofMatrix: matrix) else {
            return .leftAlone(
                "the page's image is placed at an angle that is not a multiple of 90 degrees: left alone")
        }
        return .found(PDFPlacement(placement: placed, rotation: rotation))
    }

    /// Refuses a page image without dimensions, or of more than `maxPixels` pixels, before a
    /// byte of it is decoded.
    private static func checkSize(of content: PDFPageContent, maxPixels: Int) throws {
        let (pixels, overflow) = content.width.multipliedReportingOverflow(by: content.height)
        guard content.width > 0, content.height > 0 else {
            throw DocOrientError(.malformed, "the page's image has no /Width or /Height")
        }
        guard !overflow, pixels <= maxPixels else {
            throw DocOrientError(
                .limitExceeded,
                "the page's image is \(content.width)x\(content.height), over the limit of \(maxPixels) pixels")
        }
    }

    /// The page's image as a JPEG the resolver reads: a DCT-coded image as it is stored, raw
    /// samples and Group 4 fax images decoded to grey and encoded; other codings are left alone.
    private static func jpeg(
        ofPage index: Int, _ content: PDFPageContent, in document: borrowing PDFDocument
    ) throws -> PageFinding<[UInt8]> {
        switch content.filter {
        case .dct:
            return .found(try document.imageData(page: index, maxBytes: FileIO.defaultMaxFileBytes))
        case .samples:
            let components = content.imageMask ? 1 : content.components
            let bits = content.imageMask ? 1 : content.bitsPerComponent
            guard
                let rowBytes = PDFSamples.rowBytes(width: content.width, bitsPerComponent: bits, components: components)
            else {
                return .leftAlone(
                    "the page's image has \(components == 0 ? "a colour space docorient does not read" : "\(components) components at \(bits) bits"): left alone"
                )
            }
            let data = try document.imageData(
                page: index, maxBytes: rowBytes * content.height + PDFPages.sampleSlackBytes)
            let raster = try PDFSamples.gray(
                data, width: content.width, height: content.height, bitsPerComponent: bits, components: components,
                inverted: content.decodeInverted)
            return .found(try grayJPEG(raster))
        case .ccitt(let fax):
            guard fax.k < 0, !fax.byteAligned else {
                return .leftAlone(
                    "the page's image is Group 3 fax-coded (or byte-aligned), which docorient does not decode: left alone"
                )
            }
            let data = try document.imageData(page: index, maxBytes: FileIO.defaultMaxFileBytes)
            let tiff = PDFSamples.faxTIFF(data, width: content.width, height: content.height, blackIs1: fax.blackIs1)
            let raster: Raster
            do {
                raster = try Pix.decode(tiff).gray8().grayRaster()
            } catch {
                throw DocOrientError(.malformed, "the page's fax-coded image cannot be decoded")
            }
            guard raster.width == content.width, raster.height == content.height else {
                throw DocOrientError(.malformed, "the page's fax-coded image does not decode to its /Width and /Height")
            }
            return .found(try grayJPEG(raster))
        case .other(let name):
            return .leftAlone(
                "the page's image is compressed with \(name), which docorient does not decode: left alone")
        case .none:
            return .leftAlone("the page shows no image (text or drawings): left alone")
        }
    }

    /// A decoded page image as the grey JPEG the resolver reads (quality 95).
    private static func grayJPEG(_ raster: Raster) throws -> [UInt8] {
        try TurboJPEG.encode(raster.pixels, width: raster.width, height: raster.height, subsampling: .gray, quality: 95)
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
