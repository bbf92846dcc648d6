// A TIFF file's pages: the directories (IFDs) of its main chain, each an image with its own size,
// compression and Orientation tag (274). Scanners, fax gateways and document-management exports
// write several; each page is decided and turned on its own, as a PDF's pages are.

/// The pages of a TIFF file (header at offset 0), read from its chain of IFDs.
///
/// The chain is walked to its end before anything is decided, so a file whose chain is broken
/// (a loop, an offset past the end) or too long is refused whole, with nothing written.
struct TIFFPages: Sendable {
    /// Most pages docorient reads in one TIFF: the same bound as a PDF's (`PDFPages.maxPages`).
    static let maxPages = PDFPages.maxPages
    /// Most directories in the chain, pages and reduced-resolution copies together: a chain of
    /// tiny IFDs is walked no further than this before it is refused.
    static let maxDirectories = 2 * maxPages

    /// One directory of the main chain.
    struct Directory: Sendable {
        /// Absolute offset of its entry count.
        var offset: Int
        /// Absolute offset of the 4 bytes that point at it: the header's, or the previous
        /// directory's next-IFD field.
        var link: Int
        var entryCount: Int
        /// Its Orientation entry when it is a count-1 SHORT or LONG (the one shape rewritten in place).
        var orientation: TIFFValueSlot?
        /// Whether it has an Orientation entry at all (of any shape).
        var hasOrientationEntry: Bool
        /// NewSubfileType bit 0: a reduced-resolution copy of another image, not a page.
        var isReducedResolution: Bool
    }

    let bigEndian: Bool
    /// Every directory of the main chain, in chain order.
    let directories: [Directory]
    /// Indices into `directories` of the pages (every directory but reduced-resolution copies).
    let pages: [Int]

    /// The directory of page `index` (0-based).
    func page(_ index: Int) -> Directory { directories[pages[index]] }

    /// Walks the IFD chain of the TIFF file in `b`.
    /// - Throws: `.malformed` for a broken header, an IFD offset outside the file, an IFD that
    ///   does not fit in it, or a chain that comes back to an IFD it passed (a loop);
    ///   `.limitExceeded` past `maxPages` pages or `maxDirectories` directories.
    static func parse(_ b: [UInt8]) throws -> TIFFPages {
        let header = try TIFFStructure.parse(b, base: 0, end: b.count)
        var directories: [Directory] = []
        var visited: Set<Int> = []
        var link = 4
        var offset = header.ifd0
        while offset != 0 {
            let number = directories.count + 1
            guard visited.insert(offset).inserted else {
                throw DocOrientError(
                    .malformed,
                    "the TIFF's IFD chain loops: IFD \(number) is at offset \(offset), where an earlier IFD is; "
                        + "nothing was read"
                )
            }
            guard directories.count < maxDirectories else {
                throw DocOrientError(
                    .limitExceeded,
                    "the TIFF has more than \(maxDirectories) IFDs; docorient reads at most \(maxPages) pages")
            }
            guard let directory = header.directory(b, at: offset) else {
                throw DocOrientError(
                    .malformed,
                    "IFD \(number) at offset \(offset) lies outside the \(b.count)-byte TIFF or does not fit in it")
            }
            var page = Directory(
                offset: offset, link: link, entryCount: directory.entries.count, orientation: nil,
                hasOrientationEntry: false, isReducedResolution: false)
            for e in directory.entries {
                if e.tag == TIFFStructure.Tag.orientation {
                    page.hasOrientationEntry = true
                    page.orientation = e.slot
                }
                if e.tag == TIFFStructure.Tag.newSubfileType, let kind = e.slot?.read(b) {
                    page.isReducedResolution = kind & 1 == 1
                }
            }
            directories.append(page)
            link = offset + 2 + directory.entries.count * 12
            offset = directory.next
        }
        let pages = directories.indices.filter { !directories[$0].isReducedResolution }
        guard !pages.isEmpty else {
            throw DocOrientError(.malformed, "the TIFF holds only reduced-resolution images, no page")
        }
        guard pages.count <= maxPages else {
            throw DocOrientError(
                .limitExceeded, "the TIFF has \(pages.count) pages; docorient reads at most \(maxPages)")
        }
        return TIFFPages(bigEndian: header.bigEndian, directories: directories, pages: pages)
    }

    /// The file as a TIFF whose first (and, to a reader of the first image, only) image is page
    /// `index` as stored: a copy with the header pointed at that page's IFD and the page's
    /// Orientation, if it has one, set to 1 (readers such as Leptonica turn the pixels by it).
    /// Every other byte is the file's, so the page's strips, tiles and out-of-line values are
    /// where its entries say.
    func stored(page index: Int, of b: [UInt8]) -> [UInt8] {
        var view = b
        Bytes.put32(&view, 4, page(index).offset, bigEndian: bigEndian)
        page(index).orientation?.write(&view, 1)
        return view
    }

    /// Why a multi-page TIFF is not baked.
    static let notBakedReason =
        "the pages of a multi-page TIFF are turned by their Orientation tags: baking re-encodes a TIFF's pixels and "
        + "keeps only its first image, its pixels and resolution, which would drop the other pages and every page's "
        + "other tags"
}
