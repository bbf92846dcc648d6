/// Everything docorient reads about a file's orientation, without decoding its pixels.
public struct ImageMetadata: Sendable, Equatable {
    /// The container format, detected from the file's first bytes (not its name).
    public var format: ImageFormat
    /// Stored pixel width (from the JPEG frame header, PNG IHDR or TIFF IFD0), before any
    /// orientation is applied: for orientations 5-8 a viewer shows it as the height.
    public var width: Int
    /// Stored pixel height, before any orientation is applied (see `width`).
    public var height: Int
    /// IFD0 orientation exactly as stored (may be 0 or 9+, which are no usable tag), nil when absent.
    public var exifOrientation: Int?
    /// XMP `tiff:Orientation` as stored, nil when absent (HEIF: in its XMP item, informational).
    public var xmpOrientation: Int?
    /// IFD1 (thumbnail) orientation as stored, nil when absent.
    public var thumbnailOrientation: Int?
    /// Whether an IFD1 thumbnail image is present (HEIF: or a thumbnail item of the primary image).
    public var hasThumbnail: Bool
    /// Exif IFD PixelXDimension (the width a camera recorded), nil when absent. A bake updates it.
    public var pixelXDimension: Int?
    /// Exif IFD PixelYDimension (the height a camera recorded), nil when absent. A bake updates it.
    public var pixelYDimension: Int?
    /// JPEG colour components (1 grey, 3 YCbCr, 4 CMYK); nil for PNG and TIFF.
    public var components: Int?
    /// Whether the JPEG is progressive (SOF2, SOF6, SOF10, SOF14); false for PNG and TIFF.
    public var isProgressive: Bool
    /// Whether the JPEG is arithmetic coded (SOF9 and above); false for PNG and TIFF.
    public var isArithmeticCoded: Bool
    /// HEIF: the primary image's `irot` property, anticlockwise quarter turns (0-3); nil when it
    /// has none, and for other formats.
    public var heifRotation: Int? = nil
    /// HEIF: the primary image's `imir` property, its mode (0 mirrors top-bottom, 1 left-right);
    /// nil when it has none, and for other formats.
    public var heifMirrorAxis: Int? = nil
    /// HEIF: what a HEIF viewer displays, the primary's `irot` and `imir` applied in their
    /// association order, as one EXIF orientation (1 when it has neither); nil for other formats.
    public var heifDisplayedOrientation: Orientation? = nil
    /// HEIF: the `ftyp` major brand ("heic", "avif", "mif1", ...); nil for other formats.
    public var heifBrand: String? = nil
    /// TIFF: how many pages its IFD chain holds (reduced-resolution copies not counted); the
    /// other fields describe the first. 1 for every other format. A TIFF of several pages is
    /// decided page by page (`Fixer.fix(_:options:budget:)`, one record per page).
    public var pageCount = 1

    /// The orientation a viewer applies. HEIF: the container's (`heifDisplayedOrientation`); the
    /// EXIF inside is informational. Others: IFD0 when usable, else XMP when usable, else none.
    public var effectiveOrientation: Orientation? {
        if let heifDisplayedOrientation { return heifDisplayedOrientation }
        if let v = exifOrientation, let o = Orientation(exifValue: v) { return o }
        if let v = xmpOrientation, let o = Orientation(exifValue: v) { return o }
        return nil
    }
}

extension ImageMetadata {
    /// Reads format, size and every orientation value from a file's bytes.
    /// - Throws: `DocOrientError` (`.unsupportedFormat`, `.malformed`; for a TIFF also a broken
    ///   IFD chain, and `.limitExceeded` past `TIFFPages.maxPages` pages).
    public static func read(_ bytes: [UInt8]) throws -> ImageMetadata {
        let parsed = try ParsedImage.parse(bytes)
        var metadata = try parsed.metadata(bytes)
        if case .tiff = parsed {
            metadata.pageCount = try TIFFPages.parse(bytes).pages.count
            // In a TIFF of several pages, IFD1 is the second page, not a thumbnail.
            if metadata.pageCount > 1 { metadata.thumbnailOrientation = nil }
        }
        return metadata
    }

    /// The same metadata, or an error when the image has several pages, which have a decision each.
    func singleImage() throws -> ImageMetadata {
        guard pageCount == 1 else {
            throw DocOrientError(
                .invalidRequest,
                "the TIFF has \(pageCount) pages, each decided on its own: fix it (with dryRun to change nothing) "
                    + "for one record per page"
            )
        }
        return self
    }
}

/// A parsed container, whatever its format.
enum ParsedImage {
    case jpeg(JPEGStructure)
    case png(PNGStructure)
    case tiff(TIFFStructure)
    case heif(HEIFStructure, exif: TIFFStructure?)

    static func parse(_ bytes: [UInt8]) throws -> ParsedImage {
        switch try ImageFormat.detect(bytes) {
        case .jpeg: return .jpeg(try JPEGStructure.parse(bytes))
        case .png: return .png(try PNGStructure.parse(bytes))
        case .tiff: return .tiff(try TIFFStructure.parse(bytes, base: 0, end: bytes.count))
        case .heif:
            let heif = try HEIFStructure.parse(bytes)
            return .heif(heif, exif: heif.exif(bytes))
        }
    }

    var exif: TIFFStructure? {
        switch self {
        case .jpeg(let j): return j.exif
        case .png(let p): return p.exif
        case .tiff(let t): return t
        case .heif(_, let exif): return exif
        }
    }

    func metadata(_ b: [UInt8]) throws -> ImageMetadata {
        let exif = self.exif
        var m = ImageMetadata(
            format: .jpeg, width: 0, height: 0,
            exifOrientation: exif?.orientation?.read(b),
            xmpOrientation: nil,
            thumbnailOrientation: exif?.ifd1Orientation?.read(b),
            hasThumbnail: exif?.thumbnailRange(in: b) != nil,
            pixelXDimension: exif?.pixelXDimension?.read(b),
            pixelYDimension: exif?.pixelYDimension?.read(b),
            components: nil, isProgressive: false, isArithmeticCoded: false)
        switch self {
        case .jpeg(let j):
            m.width = j.width
            m.height = j.height
            m.xmpOrientation = j.xmpOrientation?.read(b)
            m.components = j.components
            m.isProgressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(j.frameMarker)
            m.isArithmeticCoded = j.frameMarker >= 0xC9
        case .png(let p):
            m.format = .png
            m.width = p.width
            m.height = p.height
        case .tiff(let t):
            m.format = .tiff
            guard let w = t.imageWidth?.read(b), let h = t.imageLength?.read(b), w > 0, h > 0 else {
                throw DocOrientError(.malformed, "the TIFF's IFD lacks a valid ImageWidth/ImageLength")
            }
            m.width = w
            m.height = h
        case .heif(let heif, _):
            m.format = .heif
            m.xmpOrientation = heif.xmpOrientation(b)?.read(b)
            m.width = heif.width
            m.height = heif.height
            m.hasThumbnail = m.hasThumbnail || !heif.thumbnails.isEmpty
            m.heifRotation = heif.primaryRotation(b)
            m.heifMirrorAxis = heif.primaryMirrorAxis(b)
            m.heifDisplayedOrientation = heif.displayedOrientation(b)
            m.heifBrand = heif.majorBrand
        }
        return m
    }
}
