import CLeptonica

@testable import DocOrient

// Leptonica calls that only the resolver's debug tests use (ResolverDebug), kept out of the product.
extension DocOrient.Pix {
    /// Binary image by Sauvola's local threshold over windows of half-size `halfWindow`.
    /// Stands for `pixSauvolaBinarizeTiled`.
    func sauvolaBinarized(halfWindow: Int, factor: Double = 0.34) throws -> DocOrient.Pix {
        // Tiles keep the integral images small; Leptonica needs each tile larger than the window.
        let tilesX = max(1, min(8, width / max(1, 4 * halfWindow)))
        let tilesY = max(1, min(8, height / max(1, 4 * halfWindow)))
        var out: UnsafeMutablePointer<PIX>?
        let rc = pixSauvolaBinarizeTiled(
            raw, Int32(halfWindow), Float(factor), Int32(tilesX), Int32(tilesY), nil, &out)
        guard rc == 0 else {
            var leaked = out
            pixDestroy(&leaked)
            throw DocOrientError(.library, "Leptonica pixSauvolaBinarizeTiled failed")
        }
        return try DocOrient.Pix(taking: out, "pixSauvolaBinarizeTiled")
    }

    /// Writes the image to a file, for debugging only. Stands for `pixWrite`.
    func writeDebugPNG(_ path: String) {
        _ = pixWrite(path, raw, Int32(IFF_PNG))
    }
}
