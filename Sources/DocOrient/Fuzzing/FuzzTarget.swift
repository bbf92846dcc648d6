// The fuzz targets' bodies: every parser docorient owns or feeds, called as `fix` calls them.
// Behind SPI so that the fuzzer (Sources/DocOrientFuzz, Scripts/fuzz.sh) reaches the internal
// parsers through `@_spi(Fuzzing) import DocOrient` in any build configuration, while they stay
// out of the public API.

/// One libFuzzer target. Any outcome of `run` is fine except a crash, a hang or a leak.
@_spi(Fuzzing) public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The parser each target feeds, named as `Scripts/fuzz.sh` and `DocOrientFuzz` take it (the raw
    /// value): `jpeg` segments, Exif IFDs, XMP and the tag rewrite; `tiff` IFDs, the TIFF editor and
    /// thumbnail replacement, and the multi-page path (the IFD chain walk, each page's stored view,
    /// metadata and Leptonica decode under a small pixel limit, the per-page tag rewrite with
    /// copied IFDs, and its re-walk); `png` chunks and `eXIf`; `xmp` the XMP orientation search and edit;
    /// `turbojpeg` TurboJPEG's header read, grey decode, lossless transform and the bake around it;
    /// `heif` the ISO-BMFF box walk, the HEIF item, location and property parse, the irot/imir
    /// rewrite (in place and with inserted properties) and its re-parse, and libheif's decode of
    /// what parses (as `fix` hands it over, under a small pixel limit); `pdf` qpdf's parser, the
    /// page walk (inherited /Rotate and /Resources, the content stream's q/Q/cm/Do), the page
    /// image's data and samples under small bounds, the placement, and the /Rotate write and its
    /// re-read.
    case jpeg, tiff, png, xmp, turbojpeg, heif, pdf

    /// Runs one input. Any outcome is fine except a crash, a hang or a leak.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .jpeg:
            // Segment walk, EXIF/TIFF IFDs, XMP, then the in-place tag rewrite and its re-parse.
            guard let parsed = try? JPEGStructure.parse(bytes) else { return }
            _ = try? ParsedImage.jpeg(parsed).metadata(bytes)
            for o in [Orientation.rotate90, .identity] {
                if let out = try? TagRewrite.setting(o, in: bytes) { _ = try? ImageMetadata.read(out) }
            }
        case .tiff:
            guard (try? TIFFStructure.parse(bytes, base: 0, end: bytes.count)) != nil else { return }
            if let out = try? TIFFEditor.settingOrientation(3, in: bytes, pixelDimensions: (7, 9)) {
                _ = try? TIFFStructure.parse(out, base: 0, end: out.count)
            }
            _ = try? JPEGEditor.replacingThumbnail(in: bytes) { $0 }
            Self.runTIFFPages(bytes)
        case .png:
            guard let png = try? PNGStructure.parse(bytes) else { return }
            _ = try? ParsedImage.png(png).metadata(bytes)
            _ = try? TagRewrite.setting(.rotate180, in: bytes)
        case .xmp:
            if let found = XMPOrientation.find(in: bytes, range: 0..<bytes.count) {
                _ = found.read(bytes)
                _ = JPEGEditor.xmpEdit(found, value: 1, in: bytes)
            }
        case .turbojpeg:
            // The TurboJPEG paths as docorient calls them: header, scaled grey decode under a
            // small pixel limit, and the lossless transform (plus the bake around it).
            _ = try? TurboJPEG.header(bytes)
            _ = try? TurboJPEG.decodeGray(bytes, minimumLongSide: 64, maxPixels: 4_000_000)
            _ = try? Bake.apply(.rotate90, to: bytes, trim: true, maxPixels: 4_000_000)
        case .heif:
            guard let heif = try? HEIFStructure.parse(bytes) else { return }
            _ = try? ParsedImage.heif(heif, exif: heif.exif(bytes)).metadata(bytes)
            for o in [Orientation.rotate90, .transpose, .identity] {
                if let out = try? HEIFEditor.setting(o, in: bytes) { _ = try? ImageMetadata.read(out) }
            }
            _ = try? Heif.decodeGrayPix(bytes, maxPixels: 4_000_000)
        case .pdf:
            Self.pdf(bytes)
        }
    }

    /// The PDF path as `fix` walks it, without the resolver.
    private static func pdf(_ bytes: [UInt8]) {
        let limit = 64
        guard let document = try? PDFDocument(bytes: bytes, maxPages: limit) else { return }
        for index in 0..<min(document.pageCount, limit) {
            guard let page = try? document.describePage(index, maxContentBytes: 1 << 20) else { continue }
            if let matrix = page.matrix { _ = PDFPlacement.placement(ofMatrix: matrix) }
            _ = PDFPlacement.rotation(degrees: page.rotate)
            let (pixels, overflow) = page.width.multipliedReportingOverflow(by: page.height)
            if page.matrix != nil, !overflow, page.width > 0, page.height > 0, pixels <= 4_000_000,
                let data = try? document.imageData(page: index, maxBytes: 4 << 20), page.filter == .samples
            {
                _ = try? PDFSamples.gray(
                    data, width: page.width, height: page.height, bitsPerComponent: page.bitsPerComponent,
                    components: page.components, inverted: page.decodeInverted)
            }
            _ = try? document.setRotate(page: index, degrees: 90)
            if let mirror = PDFTurn.mirrorMatrix(.flipHorizontal, mediaBox: page.mediaBox, cropBox: page.cropBox) {
                _ = try? document.transformContents(page: index, matrix: mirror)
            }
        }
        if let written = try? document.written() { _ = try? PDFDocument(bytes: written, maxPages: limit) }
    }

    /// The multi-page TIFF path as `fix` runs it, minus the resolver: every page's view and
    /// decode (the first 8, each under 64 K pixels), then each page's tag set (alternately
    /// in place and by a copied IFD, where it has no entry) and the chain walked again.
    private static func runTIFFPages(_ bytes: [UInt8]) {
        guard let pages = try? TIFFPages.parse(bytes) else { return }
        for index in pages.pages.indices.prefix(8) {
            let stored = pages.stored(page: index, of: bytes)
            guard let structure = try? TIFFStructure.parse(stored, base: 0, end: stored.count),
                let metadata = try? ParsedImage.tiff(structure).metadata(stored)
            else { continue }
            _ = try? GraySource(bytes: stored, metadata: metadata, maxPixels: 1 << 16)
        }
        let values = Dictionary(uniqueKeysWithValues: pages.pages.indices.map { ($0, $0 % 2 == 0 ? 6 : 3) })
        if let out = try? TIFFEditor.settingOrientations(values, in: bytes, pages: pages) {
            _ = try? TIFFPages.parse(out)
        }
    }
}
