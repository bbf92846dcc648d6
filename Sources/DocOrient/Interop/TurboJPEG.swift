internal import CTurboJPEG

/// libjpeg-turbo's TurboJPEG API: header reads, DCT-scaled grey decoding and lossless transforms.
///
/// Each call owns its `tjhandle` for its own duration (creating one costs microseconds), so the
/// functions are safe to call from any number of threads at once.
package enum TurboJPEG {
    /// Owns one tjhandle and destroys it exactly once.
    private struct Handle: ~Copyable {
        /// What a handle is made for (TurboJPEG's handles are not interchangeable).
        enum Kind { case decompress, compress, transform }

        let raw: tjhandle

        /// Stands for `tjInitDecompress`, `tjInitCompress` or `tjInitTransform`.
        init(_ kind: Kind) throws {
            let made: tjhandle?
            switch kind {
            case .decompress: made = tjInitDecompress()
            case .compress: made = tjInitCompress()
            case .transform: made = tjInitTransform()
            }
            guard let made else { throw DocOrientError(.library, "TurboJPEG could not create a handle") }
            self.raw = made
        }

        deinit { tjDestroy(raw) }

        /// `call` failed on this handle, and the handle's last error says why. Stands for
        /// `tjGetErrorStr2`.
        func cause(_ call: String) -> DocOrientError.Cause {
            guard let message = tjGetErrorStr2(raw) else { return .library(call, "unknown TurboJPEG error") }
            return .library(call, String(cString: message))
        }
    }

    struct Header {
        var width: Int
        var height: Int
        var subsampling: Int32
        /// MCU size in pixels: transforms are perfect only when the moved edges are multiples.
        var mcuWidth: Int
        var mcuHeight: Int
    }

    /// Reads the frame header.
    static func header(_ jpeg: [UInt8]) throws -> Header {
        let frame = try rawHeader(jpeg, handle: Handle(.decompress))
        let mcu = mcuSize(frame.subsampling)
        return Header(
            width: frame.width, height: frame.height, subsampling: frame.subsampling, mcuWidth: mcu.0, mcuHeight: mcu.1)
    }

    /// The frame header as TurboJPEG reads it: the one place that calls `tjDecompressHeader3`.
    private static func rawHeader(
        _ jpeg: [UInt8], handle: borrowing Handle
    ) throws -> (width: Int, height: Int, subsampling: Int32, colorspace: Int32) {
        var w: Int32 = 0, h: Int32 = 0, subsamp: Int32 = 0, colorspace: Int32 = 0
        let rc = jpeg.withUnsafeBufferPointer {
            tjDecompressHeader3(handle.raw, $0.baseAddress, UInt($0.count), &w, &h, &subsamp, &colorspace)
        }
        guard rc == 0 else {
            throw DocOrientError(.malformed, "JPEG header unreadable", cause: handle.cause("tjDecompressHeader3"))
        }
        return (Int(w), Int(h), subsamp, colorspace)
    }

    private static func mcuSize(_ subsamp: Int32) -> (Int, Int) {
        switch subsamp {
        case Int32(TJSAMP_422.rawValue): return (16, 8)
        case Int32(TJSAMP_420.rawValue): return (16, 16)
        case Int32(TJSAMP_440.rawValue): return (8, 16)
        case Int32(TJSAMP_411.rawValue): return (32, 8)
        default: return (8, 8)
        }
    }

    /// Decodes to grey at the smallest DCT scale (1/8, 1/4, ... 1) whose long side is at least
    /// `minimumLongSide`, never at full size when a smaller scale will do.
    /// Stands for `tjGetScalingFactors` + `tjDecompress2(..., TJPF_GRAY, ...)`.
    /// - Parameter maxPixels: refuse frames larger than this before allocating anything.
    package static func decodeGray(_ jpeg: [UInt8], minimumLongSide: Int, maxPixels: Int) throws -> Raster {
        try decodeScaled(jpeg, minimumLongSide: minimumLongSide, maxPixels: maxPixels, rgb: false)
    }

    /// Decodes at full size to grey straight into a Leptonica image: no intermediate buffer to
    /// zero, fill and copy again (a byte a pixel). CMYK and YCCK files take
    /// `decodeGray`'s way, since they are converted pixel by pixel anyway.
    /// - Parameter maxPixels: refuse frames larger than this before allocating anything.
    static func decodeGrayPix(_ jpeg: [UInt8], maxPixels: Int) throws -> Pix {
        let handle = try Handle(.decompress)
        let frame = try frame(of: jpeg, handle: handle, maxPixels: maxPixels)
        if frame.cmyk { return try Pix.gray(decodeGray(jpeg, minimumLongSide: .max, maxPixels: maxPixels)) }
        return try Pix.gray(width: frame.width, height: frame.height) { rows, pitch in
            let status = jpeg.withUnsafeBufferPointer { src in
                tjDecompress2(
                    handle.raw, src.baseAddress, UInt(src.count), rows, Int32(frame.width), Int32(pitch),
                    Int32(frame.height), Int32(TJPF_GRAY.rawValue), Int32(decodeFlags))
            }
            guard status == 0 else {
                throw DocOrientError(.malformed, "JPEG data is corrupt", cause: handle.cause("tjDecompress2"))
            }
        }
    }

    private static let decodeFlags = TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS

    /// The frame's size and whether it decodes only to CMYK, refused when over `maxPixels`.
    private static func frame(
        of jpeg: [UInt8], handle: borrowing Handle, maxPixels: Int
    ) throws -> (width: Int, height: Int, cmyk: Bool) {
        let header = try rawHeader(jpeg, handle: handle)
        guard header.width * header.height <= maxPixels else {
            throw DocOrientError(
                .limitExceeded, "JPEG is \(header.width)x\(header.height), over the limit of \(maxPixels) pixels")
        }
        // CMYK and YCCK JPEGs (print workflows, some scanners) decode only to CMYK.
        let cmyk = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        return (header.width, header.height, cmyk)
    }

    /// `decodeGray`, or packed RGB (3 bytes per pixel) when `rgb` is set.
    static func decodeScaled(_ jpeg: [UInt8], minimumLongSide: Int, maxPixels: Int, rgb: Bool) throws -> Raster {
        let handle = try Handle(.decompress)
        let frame = try frame(of: jpeg, handle: handle, maxPixels: maxPixels)
        let (w, h, cmyk) = (frame.width, frame.height, frame.cmyk)
        var count: Int32 = 0
        var factors: [(num: Int, denom: Int)] = []
        if let list = tjGetScalingFactors(&count) {
            for i in 0..<Int(count) where list[i].num <= list[i].denom {
                factors.append((Int(list[i].num), Int(list[i].denom)))
            }
        }
        factors.sort { $0.num * $1.denom < $1.num * $0.denom }
        let longSide = max(w, h)
        let scale = factors.first { (longSide * $0.num + $0.denom - 1) / $0.denom >= minimumLongSide } ?? (1, 1)
        let sw = (w * scale.num + scale.denom - 1) / scale.denom
        let sh = (h * scale.num + scale.denom - 1) / scale.denom
        let channels = cmyk ? 4 : rgb ? 3 : 1
        var pixels = [UInt8](repeating: 0, count: sw * sh * channels)
        let format = cmyk ? TJPF_CMYK : rgb ? TJPF_RGB : TJPF_GRAY
        let status = jpeg.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    handle.raw, src.baseAddress, UInt(src.count), dst.baseAddress, Int32(sw), Int32(sw * channels),
                    Int32(sh), Int32(format.rawValue), Int32(decodeFlags))
            }
        }
        guard status == 0 else {
            throw DocOrientError(.malformed, "JPEG data is corrupt", cause: handle.cause("tjDecompress2"))
        }
        if cmyk { return fromCMYK(pixels, width: sw, height: sh, rgb: rgb, inverted: isAdobe(jpeg)) }
        return Raster(width: sw, height: sh, channels: channels, pixels: pixels)
    }

    /// Converts decoded CMYK to grey or RGB. Adobe applications (and ImageMagick) write CMYK
    /// inverted and mark the file with an APP14 "Adobe" segment; readers invert it back, as here.
    private static func fromCMYK(_ cmyk: [UInt8], width: Int, height: Int, rgb: Bool, inverted: Bool) -> Raster {
        let count = width * height
        var rgbPixels = [UInt8](repeating: 0, count: count * 3)
        for i in 0..<count {
            func ink(_ c: Int) -> Int { inverted ? 255 - Int(cmyk[i * 4 + c]) : Int(cmyk[i * 4 + c]) }
            let k = 255 - ink(3)
            for c in 0..<3 { rgbPixels[i * 3 + c] = UInt8((255 - ink(c)) * k / 255) }
        }
        if rgb { return Raster(width: width, height: height, channels: 3, pixels: rgbPixels) }
        var gray = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            gray[i] = UInt8(
                (Int(rgbPixels[i * 3]) * 77 + Int(rgbPixels[i * 3 + 1]) * 150 + Int(rgbPixels[i * 3 + 2]) * 29) >> 8)
        }
        return Raster(width: width, height: height, pixels: gray)
    }

    /// Decodes to packed pixels at full size, grey (1 byte per pixel) or RGB (3 bytes).
    /// For tests and small images only: the resolver decodes scaled with `decodeGray`.
    static func decodeFull(_ jpeg: [UInt8], rgb: Bool) throws -> Raster {
        let handle = try Handle(.decompress)
        let header = try rawHeader(jpeg, handle: handle)
        let (w, h) = (Int32(header.width), Int32(header.height))
        let channels = rgb ? 3 : 1
        var pixels = [UInt8](repeating: 0, count: Int(w) * Int(h) * channels)
        let format = rgb ? TJPF_RGB : TJPF_GRAY
        let status = jpeg.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    handle.raw, src.baseAddress, UInt(src.count), dst.baseAddress, w, w * Int32(channels), h,
                    Int32(format.rawValue), Int32(TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING))
            }
        }
        guard status == 0 else {
            throw DocOrientError(.malformed, "JPEG data is corrupt", cause: handle.cause("tjDecompress2"))
        }
        return Raster(width: Int(w), height: Int(h), channels: channels, pixels: pixels)
    }

    /// Chroma subsampling for `encode`.
    enum Subsampling {
        case gray, s444, s420
    }

    /// Encodes packed pixels (1 byte grey, or 3 bytes RGB per pixel) as a baseline JPEG.
    /// Stands for `tjCompress2`.
    static func encode(
        _ pixels: [UInt8], width: Int, height: Int, subsampling: Subsampling, quality: Int = 90
    ) throws -> [UInt8] {
        let handle = try Handle(.compress)
        let gray = subsampling == .gray
        guard pixels.count == width * height * (gray ? 1 : 3) else {
            throw DocOrientError(.invalidRequest, "pixel buffer does not match \(width)x\(height)")
        }
        let samp: TJSAMP = gray ? TJSAMP_GRAY : (subsampling == .s444 ? TJSAMP_444 : TJSAMP_420)
        var dst: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = pixels.withUnsafeBufferPointer { src in
            tjCompress2(
                handle.raw, src.baseAddress, Int32(width), 0, Int32(height),
                Int32((gray ? TJPF_GRAY : TJPF_RGB).rawValue),
                &dst, &size, Int32(samp.rawValue), Int32(quality), Int32(TJFLAG_ACCURATEDCT))
        }
        defer { if let dst { tjFree(dst) } }
        guard rc == 0, let dst else {
            throw DocOrientError(.library, "JPEG encoding failed", cause: handle.cause("tjCompress2"))
        }
        return Array(UnsafeBufferPointer(start: dst, count: Int(size)))
    }

    /// What to do with partial MCU blocks on edges that a transform moves.
    enum EdgePolicy {
        /// Refuse (`.imperfectTransform`) rather than lose or garble edge pixels.
        case perfect
        /// Drop the partial blocks: the image loses up to one MCU on the moved edges.
        case trim
    }

    /// Applies `orientation` to the DCT coefficients, copying every marker of the source.
    /// Stands for `tjTransform`.
    static func transform(_ jpeg: [UInt8], orientation: Orientation, edges: EdgePolicy) throws -> [UInt8] {
        let handle = try Handle(.transform)
        var t = tjtransform()
        t.op = Int32(operation(orientation).rawValue)
        t.options = Int32(edges == .perfect ? TJXOPT_PERFECT : TJXOPT_TRIM)
        var dst: UnsafeMutablePointer<UInt8>?
        var dstSize: UInt = 0
        let flags = Int32(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
        let rc = jpeg.withUnsafeBufferPointer { src in
            tjTransform(handle.raw, src.baseAddress, UInt(src.count), 1, &dst, &dstSize, &t, flags)
        }
        defer { if let dst { tjFree(dst) } }
        guard rc == 0, let dst else {
            let cause = handle.cause("tjTransform")
            if edges == .perfect, cause.message.contains("perfect") {
                throw DocOrientError(.imperfectTransform, "the transform would move partial MCU blocks", cause: cause)
            }
            throw DocOrientError(.library, "lossless transform failed", cause: cause)
        }
        return Array(UnsafeBufferPointer(start: dst, count: Int(dstSize)))
    }

    private static func isAdobe(_ jpeg: [UInt8]) -> Bool {
        guard let structure = try? JPEGStructure.parse(jpeg) else { return false }
        return structure.segments.contains {
            $0.marker == 0xEE && Bytes.hasPrefix(jpeg, Array("Adobe".utf8), at: $0.payload.lowerBound)
        }
    }

    private static func operation(_ o: Orientation) -> TJXOP {
        switch o {
        case .identity: return TJXOP_NONE
        case .flipHorizontal: return TJXOP_HFLIP
        case .rotate180: return TJXOP_ROT180
        case .flipVertical: return TJXOP_VFLIP
        case .transpose: return TJXOP_TRANSPOSE
        case .rotate90: return TJXOP_ROT90
        case .transverse: return TJXOP_TRANSVERSE
        case .rotate270: return TJXOP_ROT270
        }
    }
}
