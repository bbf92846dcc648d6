internal import CLeptonica

#if canImport(Glibc)
    import Glibc
#endif

/// Lossless re-encoding through Leptonica, for baking PNG and TIFF (which have no DCT-domain
/// transform): decode, turn the pixels exactly, encode with lossless compression.
extension Pix {
    /// PNG bytes (deflate, lossless). Stands for `pixWriteMemPng`.
    package func encodedPNG() throws -> [UInt8] {
        try encoded("pixWriteMemPng") { data, size in pixWriteMemPng(data, size, raw, LeptonicaArgument.noGamma) }
    }

    /// TIFF bytes: G4 for 1-bit images, deflate for the rest (both lossless). Stands for `pixWriteMemTiff`.
    func encodedTIFF() throws -> [UInt8] {
        let compression = depth == 1 ? IFF_TIFF_G4 : IFF_TIFF_ZIP
        return try encoded("pixWriteMemTiff") { data, size in pixWriteMemTiff(data, size, raw, Int32(compression)) }
    }

    private func encoded(
        _ name: String,
        _ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>) -> Int32
    ) throws -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        let rc = write(&data, &size)
        defer { if let data { free(data) } }
        guard rc == 0, let data else { throw DocOrientError(.library, "Leptonica \(name) failed") }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
