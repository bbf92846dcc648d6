/// Decoded 8-bit pixels, rows packed without padding: grey (1 byte per pixel), or interleaved
/// channels when `width` counts bytes (RGB: 3 per pixel).
struct GrayImage: Sendable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    /// The image as a viewer shows it under `orientation`, for `channels` bytes per pixel.
    func transformed(by orientation: Orientation, channels: Int = 1) -> GrayImage {
        let w = width / channels, h = height
        let stored = Size(width: Double(w), height: Double(h))
        let shown = orientation.displaySize(forStored: stored)
        let ow = Int(shown.width), oh = Int(shown.height)
        var out = [UInt8](repeating: 0, count: ow * oh * channels)
        for y in 0..<h {
            for x in 0..<w {
                let p = orientation.displayPoint(fromStored: Point(x: Double(x) + 0.5, y: Double(y) + 0.5), storedSize: stored)
                let target = (Int(p.y) * ow + Int(p.x)) * channels
                let source = (y * w + x) * channels
                for c in 0..<channels { out[target + c] = pixels[source + c] }
            }
        }
        return GrayImage(width: ow * channels, height: oh, pixels: out)
    }
}
