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

/// What `fix` changes on one page: its /Rotate and, for a mirror, the transform drawn around its content.
private struct PageChange: CustomStringConvertible {
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
        var pages: [FixRecord] = []
        var changes: [PageChange] = []
        for index in 0..<document.pageCount {
            if signal?.isCancelled == true { throw CancellationError() }
            let pageClock = ContinuousClock.now
            var record = FixRecord(path: nil)
            record.page = index + 1
            do {
                if let change = try decidePage(index, of: document, into: &record, budget: budget, signal: signal) {
                    changes.append(change)
                    record.action = options.dryRun ? .wouldRewriteTag : .tagRewritten
                    record.reason = change.description
                }
            } catch let error as DocOrientError {
                record.fail(error)
            }
            record.elapsedMilliseconds = pageClock.duration(to: .now).milliseconds
            pages.append(record)
        }
        var output = bytes
        if !options.dryRun, !changes.isEmpty {
            for change in changes {
                try document.setRotate(page: change.index, degrees: change.rotation.degreesClockwise)
                if let matrix = change.mirrorMatrix {
                    try document.transformContents(page: change.index, matrix: matrix)
                }
            }
            output = try document.written()
            // What is written must read back as the same pages, each changed one showing its
            // image as decided, or nothing is written.
            let check = try PDFDocument(bytes: output, maxPages: PDFPages.maxPages)
            guard check.pageCount == document.pageCount else {
                throw DocOrientError(.library, "qpdf wrote \(check.pageCount) pages for \(document.pageCount)")
            }
            for change in changes {
                let page = try check.describePage(change.index, maxContentBytes: PDFPages.maxContentBytes)
                let shown = page.matrix.flatMap(PDFPlacement.placement(ofMatrix:)).flatMap { placed in
                    PDFPlacement.rotation(degrees: page.rotate).map {
                        PDFPlacement(placement: placed, rotation: $0).shown
                    }
                }
                guard shown == change.target else {
                    throw DocOrientError(
                        .library, "page \(change.index + 1) does not read back as turned; nothing was written")
                }
            }
        }
        var record = Self.summary(of: pages)
        record.elapsedMilliseconds = clock.duration(to: .now).milliseconds
        return FixedImage(bytes: output, record: record)
    }

    /// Decides page `index`: fills `record` and returns what turns the page upright, nil when
    /// it stays as it is (upright already, or undecidable).
    private func decidePage(
        _ index: Int, of document: borrowing PDFDocument, into record: inout FixRecord, budget: WorkBudget?,
        signal: CancellationSignal?
    ) throws -> PageChange? {
        let content = try document.describePage(index, maxContentBytes: PDFPages.maxContentBytes)
        func leave(_ reason: String) -> PageChange? {
            record.verdict = .undecidable
            record.reason = reason
            return nil
        }
        guard content.rotateIsInteger, let rotation = PDFPlacement.rotation(degrees: content.rotate) else {
            return leave("the page's /Rotate is not a multiple of 90: left alone")
        }
        guard let matrix = content.matrix else {
            if content.forms > 0 {
                return leave("the page draws through form XObjects, which docorient does not look into: left alone")
            }
            if content.images > 0 { return leave("the page's only images are inline images: left alone") }
            return leave("the page shows no image (text or drawings): left alone")
        }
        guard content.dominantShare >= PDFPages.minDominantShare else {
            return leave("the page paints \(content.images) images, none over half of their area: left alone")
        }
        guard let placed = PDFPlacement.placement(ofMatrix: matrix) else {
            return leave("the page's image is placed at an angle that is not a multiple of 90 degrees: left alone")
        }
        let placement = PDFPlacement(placement: placed, rotation: rotation)
        record.exifOrientation = placement.shown.exifValue
        let maxPixels = resolver.configuration.maxPixels
        let (pixels, overflow) = content.width.multipliedReportingOverflow(by: content.height)
        guard content.width > 0, content.height > 0 else {
            throw DocOrientError(.malformed, "the page's image has no /Width or /Height")
        }
        guard !overflow, pixels <= maxPixels else {
            throw DocOrientError(
                .limitExceeded,
                "the page's image is \(content.width)x\(content.height), over the limit of \(maxPixels) pixels")
        }
        let image: [UInt8]
        switch content.filter {
        case .dct:
            image = try document.imageData(page: index, maxBytes: FileIO.defaultMaxFileBytes)
        case .samples:
            let components = content.imageMask ? 1 : content.components
            let bits = content.imageMask ? 1 : content.bitsPerComponent
            guard
                let rowBytes = PDFSamples.rowBytes(width: content.width, bitsPerComponent: bits, components: components)
            else {
                return leave(
                    "the page's image has \(components == 0 ? "a colour space docorient does not read" : "\(components) components at \(bits) bits"): left alone"
                )
            }
            let data = try document.imageData(
                page: index, maxBytes: rowBytes * content.height + PDFPages.sampleSlackBytes)
            let raster = try PDFSamples.gray(
                data, width: content.width, height: content.height, bitsPerComponent: bits, components: components,
                inverted: content.decodeInverted)
            image = try TurboJPEG.encode(
                raster.pixels, width: raster.width, height: raster.height, subsampling: .gray, quality: 95)
        case .ccitt(let fax):
            guard fax.k < 0, !fax.byteAligned else {
                return leave(
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
            image = try TurboJPEG.encode(
                raster.pixels, width: raster.width, height: raster.height, subsampling: .gray, quality: 95)
        case .other(let name):
            return leave("the page's image is compressed with \(name), which docorient does not decode: left alone")
        case .none:
            return leave("the page shows no image (text or drawings): left alone")
        }
        let metadata: ImageMetadata
        do {
            metadata = try ImageMetadata.read(image)
        } catch let error as DocOrientError {
            throw DocOrientError(.malformed, "the page's JPEG image cannot be read: \(error.message)")
        }
        // Inside a PDF, the JPEG's own EXIF tag turns nothing: what the page shows is the prior.
        let decision = try resolver.decide(
            imageBytes: image, metadata: metadata, prior: placement.shown, budget: budget, signal: signal)
        record.take(original: placement.shown, decision: decision)
        guard let target = decision.orientation, target != placement.shown else { return nil }
        let turn = placement.turn(showing: target)
        guard let mirror = turn.mirror else {
            return PageChange(index: index, target: target, rotation: turn.rotation, mirrorMatrix: nil)
        }
        // A mirror is drawn by a content stream around the page's own: what that stream cannot
        // reach, or what its own content would undo, leaves the page as it was.
        let mirrored = "the page reads mirrored (shown as \(placement.shown.exifValue), upright as \(target.exifValue))"
        if content.annotations > 0 {
            return leave(
                "\(mirrored), and its \(content.annotations) annotation(s) would not be mirrored with its content: left alone"
            )
        }
        if content.unbalancedRestores > 0 {
            return leave(
                "\(mirrored), and its content restores graphics states it did not save, which would undo a mirror around it: left alone"
            )
        }
        guard let matrix = PDFTurn.mirrorMatrix(mirror, mediaBox: content.mediaBox, cropBox: content.cropBox) else {
            return leave(
                "\(mirrored), and it has no media box (or its crop box lies outside it) to mirror about: left alone")
        }
        return PageChange(index: index, target: target, rotation: turn.rotation, mirrorMatrix: matrix)
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
            record.errorCode = pages[0].errorCode
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
        record.reason = record.verdict == .error ? "\(summary); page 1: \(pages[0].reason ?? "failed")" : summary
        return record
    }
}
