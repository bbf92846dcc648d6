/// One line of `docorient inspect --json`: a file's format, size and every orientation value.
public struct InspectRecord: Encodable, Sendable {
    /// The file as given on the command line.
    public var path: String
    /// What was read from the file; nil when it could not be read (then `error` says why).
    public var metadata: ImageMetadata?
    /// Why the file could not be inspected (unsupported format, malformed container, I/O); nil on success.
    public var error: DocOrientError?

    /// A record of `path`: give `metadata` when it was read, `error` when it was not.
    public init(path: String, metadata: ImageMetadata?, error: DocOrientError?) {
        self.path = path
        self.metadata = metadata
        self.error = error
    }

    enum Key: String, CodingKey {
        case path, format, width, height, error, components, progressive
        case exifOrientation = "exif_orientation"
        case xmpOrientation = "xmp_orientation"
        case thumbnailOrientation = "thumbnail_orientation"
        case hasThumbnail = "has_thumbnail"
        case pixelXDimension = "pixel_x_dimension"
        case pixelYDimension = "pixel_y_dimension"
        case effectiveOrientation = "effective_orientation"
        case heifRotation = "heif_rotation"
        case heifMirror = "heif_mirror"
        case heifBrand = "heif_brand"
        case errorCode = "error_code"
        case errorCause = "error_cause"
    }

    /// Every key is always present; absent values are JSON null, so pipelines need no defaults.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        let m = metadata
        try c.encode(path, forKey: .path)
        try c.encode(m?.format.rawValue, forKey: .format)
        try c.encode(m?.width, forKey: .width)
        try c.encode(m?.height, forKey: .height)
        try c.encode(m?.exifOrientation, forKey: .exifOrientation)
        try c.encode(m?.xmpOrientation, forKey: .xmpOrientation)
        try c.encode(m?.thumbnailOrientation, forKey: .thumbnailOrientation)
        try c.encode(m?.hasThumbnail, forKey: .hasThumbnail)
        try c.encode(m?.pixelXDimension, forKey: .pixelXDimension)
        try c.encode(m?.pixelYDimension, forKey: .pixelYDimension)
        try c.encode(m?.effectiveOrientation?.exifValue, forKey: .effectiveOrientation)
        try c.encode(m?.heifRotation, forKey: .heifRotation)
        try c.encode(m?.heifMirrorAxis, forKey: .heifMirror)
        try c.encode(m?.heifBrand, forKey: .heifBrand)
        try c.encode(m?.components, forKey: .components)
        try c.encode(m?.isProgressive, forKey: .progressive)
        try c.encode(error?.explanation, forKey: .error)
        try c.encode(error?.code.rawValue, forKey: .errorCode)
        try c.encode(error?.cause, forKey: .errorCause)
    }

    /// The record as `docorient inspect` prints it, e.g. "scan.jpg: JPEG 4032x3024, EXIF 6 (rotate
    /// 90 cw), XMP none"; a stored value that is no usable orientation shows as "(not a usable value)".
    /// HEIF: "photo.heic: HEIF 4032x3024 (brand heic), irot 3 (270 ccw), imir none, EXIF 1 (upright)
    /// (informational), displays as 6 (rotate 90 cw)".
    public var humanLine: String {
        if let error { return "\(path): error: \(error.explanation)" }
        guard let m = metadata else { return "\(path): no metadata" }
        func show(_ v: Int?) -> String {
            guard let v else { return "none" }
            if let o = Orientation(exifValue: v) { return o.description }
            return "\(v) (not a usable value)"
        }
        var parts = ["\(m.format.rawValue.uppercased()) \(m.width)x\(m.height)", "EXIF \(show(m.exifOrientation))"]
        if m.format == .heif {
            let rotation = m.heifRotation.map { "\($0) (\($0 * 90) ccw)" } ?? "none"
            let mirror = m.heifMirrorAxis.map { "\($0) (\($0 == 1 ? "left-right" : "top-bottom"))" } ?? "none"
            parts = [
                "HEIF \(m.width)x\(m.height) (brand \(m.heifBrand ?? "?"))", "irot \(rotation)", "imir \(mirror)",
                "EXIF \(show(m.exifOrientation)) (informational)",
            ]
            if let xmp = m.xmpOrientation { parts.append("XMP \(show(xmp)) (informational)") }
            parts.append("displays as \((m.heifDisplayedOrientation ?? .identity).description)")
            if m.hasThumbnail { parts.append("thumbnail present") }
            return "\(path): " + parts.joined(separator: ", ")
        }
        if m.format == .jpeg { parts.append("XMP \(show(m.xmpOrientation))") }
        if m.hasThumbnail || m.thumbnailOrientation != nil {
            parts.append(
                "thumbnail \(m.hasThumbnail ? "present" : "absent"), orientation \(show(m.thumbnailOrientation))")
        }
        return "\(path): " + parts.joined(separator: ", ")
    }
}
