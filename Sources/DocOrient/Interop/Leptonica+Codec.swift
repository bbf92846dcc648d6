internal import CLeptonica
#if canImport(Glibc)
    import Glibc
#endif

/// Lossless re-encoding through Leptonica, for baking PNG and TIFF (which have no DCT-domain
/// transform): decode, turn the pixels exactly, encode with lossless compression.
extension Pix {
    /// The pixels as a viewer shows them under `orientation`: mirror left-right first, then turn
    /// clockwise. Stands for `pixFlipLR` + `pixRotateOrth`.
    func oriented(_ orientation: Orientation) throws -> Pix {
        _ = Leptonica.silenced
        if orientation.isMirrored {
            let flipped = try Pix(taking: pixFlipLR(nil, raw), "pixFlipLR")
            return try flipped.rotatedClockwise(orientation.quarterTurns)
        }
        return try rotatedClockwise(orientation.quarterTurns)
    }

    private func rotatedClockwise(_ quarterTurns: Int) throws -> Pix {
        try Pix(taking: pixRotateOrth(raw, Int32(quarterTurns)), "pixRotateOrth")
    }

    /// PNG bytes (deflate, lossless). Stands for `pixWriteMemPng`.
    func encodedPNG() throws -> [UInt8] {
        try encoded("pixWriteMemPng") { data, size in pixWriteMemPng(data, size, raw, 0) }
    }

    /// TIFF bytes: G4 for 1-bit images, deflate for the rest (both lossless). Stands for `pixWriteMemTiff`.
    func encodedTIFF() throws -> [UInt8] {
        let compression = depth == 1 ? IFF_TIFF_G4 : IFF_TIFF_ZIP
        return try encoded("pixWriteMemTiff") { data, size in pixWriteMemTiff(data, size, raw, Int32(compression)) }
    }

    private func encoded(_ name: String, _ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>) -> Int32) throws -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        let rc = write(&data, &size)
        defer { if let data { free(data) } }
        guard rc == 0, let data else { throw DocOrientError(.library, "Leptonica \(name) failed") }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
