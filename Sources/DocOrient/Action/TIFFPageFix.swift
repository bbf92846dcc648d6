// Multi-page TIFFs (scanners, fax gateways, document-management exports): each page decided as a
// photo is, and turned by its own Orientation tag, the one change that moves no image data. The
// pages' records add up as a PDF's do (`Fixer.summary(of:)`).

extension TIFFPages {
    /// The TIFF file `bytes` (whose chain is `pages`) with the Orientation tag of each page in
    /// `values` (page index, 0-based, to EXIF value) set, every other byte in use kept
    /// (`TIFFEditor.settingOrientations`): what `fix` writes, and what a person's turn of one
    /// page on the review page writes (`Reorientation.change(page:showing:in:)`).
    /// - Throws: `DocOrientError` when the tags cannot be set, or when the result does not read
    ///   back as the same pages, each changed one with its new tag; nothing is written then.
    static func settingOrientations(_ values: [Int: Int], in bytes: [UInt8], pages: TIFFPages) throws -> [UInt8] {
        let output = try TIFFEditor.settingOrientations(values, in: bytes, pages: pages)
        let check = try TIFFPages.parse(output)
        guard check.pages.count == pages.pages.count,
            values.allSatisfy({ check.page($0.key).orientation?.read(output) == $0.value })
        else {
            throw DocOrientError(
                .library, "the rewritten TIFF does not read back with its new tags; nothing was written")
        }
        return output
    }
}

extension Fixer {
    /// Decides every page of the multi-page TIFF in `bytes` (its chain walked as `pages`) and,
    /// unless `options.dryRun`, sets the Orientation tag of each page the text says is shown
    /// turned; the file's record holds one record per page. With `bake` the tags are rewritten
    /// too, and each such page's record says why its pixels were not turned.
    /// - Throws: `DocOrientError` when the file as a whole cannot be written; a page that cannot
    ///   be read fails alone, in its record.
    func fixTIFFPages(
        bytes: [UInt8], pages: TIFFPages, options: FixOptions, budget: WorkBudget?, signal: CancellationSignal?
    ) throws -> FixedImage {
        try fixPages(
            pages.pages.count, of: bytes, started: .now, options: options, signal: signal,
            decide: { index, record in
                try decideTIFFPage(index, of: pages, in: bytes, into: &record, budget: budget, signal: signal).map {
                    (
                        change: (page: index, value: $0),
                        reason: "Orientation tag \($0)"
                            + (options.bake ? "; not baked: \(TIFFPages.notBakedReason)" : "")
                    )
                }
            },
            write: { changes in
                try TIFFPages.settingOrientations(
                    Dictionary(uniqueKeysWithValues: changes.map { ($0.page, $0.value) }), in: bytes, pages: pages)
            })
    }

    /// Decides page `index`: fills `record` and returns the Orientation value that shows the
    /// page upright, nil when its tag already does (or it is undecidable). A page without a
    /// usable tag is shown as 1, TIFF's default, and is the prior as such.
    private func decideTIFFPage(
        _ index: Int, of pages: TIFFPages, in bytes: [UInt8], into record: inout FixRecord, budget: WorkBudget?,
        signal: CancellationSignal?
    ) throws -> Int? {
        let stored = pages.stored(page: index, of: bytes)
        var metadata = try ParsedImage.tiff(TIFFStructure.parse(stored, base: 0, end: stored.count)).metadata(stored)
        // The page's own tag (the view says 1); what follows it in the chain is the next page, not a thumbnail.
        let tag = pages.page(index).orientation?.read(bytes)
        metadata.exifOrientation = tag
        metadata.thumbnailOrientation = nil
        metadata.hasThumbnail = false
        let shown = tag.flatMap(Orientation.init(exifValue:)) ?? .identity
        let decision = try resolver.decide(
            imageBytes: stored, metadata: metadata, prior: shown, budget: budget, signal: signal)
        record.take(original: shown, decision: decision)
        guard let target = decision.orientation, target.exifValue != (tag ?? 1) else { return nil }
        return target.exifValue
    }
}
