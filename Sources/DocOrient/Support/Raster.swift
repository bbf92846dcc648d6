/// Decoded pixels, rows in reading order without padding: `channels` bytes per pixel (1 grey,
/// 3 RGB, 4 CMYK or RGBA).
package struct Raster: Sendable {
    /// Pixels per row.
    var width: Int
    /// Rows.
    var height: Int
    /// Bytes per pixel.
    var channels = 1
    /// `width * height * channels` bytes.
    var pixels: [UInt8]

    /// The image as a viewer shows it under `orientation`.
    func transformed(by orientation: Orientation) -> Raster {
        let stored = Size(width: Double(width), height: Double(height))
        let shown = orientation.displaySize(forStored: stored)
        let ow = Int(shown.width), oh = Int(shown.height)
        var out = [UInt8](repeating: 0, count: ow * oh * channels)
        for y in 0..<height {
            for x in 0..<width {
                let p = orientation.displayPoint(
                    fromStored: Point(x: Double(x) + 0.5, y: Double(y) + 0.5), storedSize: stored)
                let target = (Int(p.y) * ow + Int(p.x)) * channels
                let source = (y * width + x) * channels
                for c in 0..<channels { out[target + c] = pixels[source + c] }
            }
        }
        return Raster(width: ow, height: oh, channels: channels, pixels: out)
    }
}
