import Foundation

// Slanted text turned level before it is read: a hand-held photo's lines slant by a few degrees,
// and Tesseract reads them as noise until they are level, so windows and lines are cut from the
// page already turned by the slant their links measured.

extension Pix {
    /// The part of the image in `box` with its text lines turned level: the lines slant
    /// clockwise by `skew` radians. Cut with a margin that the turn brings into the box, turned
    /// about the margin's centre, and cut to the box again. A slant under `minSkew` is left alone.
    func levelledCrop(_ box: PixelBox, skew: Double) throws -> Pix {
        guard abs(skew) >= Self.minSkew else { return try cropped(to: box) }
        let reach = Int((Double(max(box.width, box.height)) * sin(abs(skew))).rounded(.up)) + Self.levelMargin
        let x0 = max(0, box.x - reach), y0 = max(0, box.y - reach)
        let x1 = min(width, box.maxX + reach), y1 = min(height, box.maxY + reach)
        let around = PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let turned = try cropped(to: around).rotated(counterclockwiseBy: skew)
        // The box's centre, relative to the margin's centre, turned with it (y runs down, so a
        // counterclockwise turn on screen is (x, y) -> (x cos + y sin, -x sin + y cos)).
        let (cx, cy) = (Double(around.width) / 2, Double(around.height) / 2)
        let (bx, by) = (
            Double(box.x - x0) + Double(box.width) / 2 - cx, Double(box.y - y0) + Double(box.height) / 2 - cy
        )
        let (tx, ty) = (bx * cos(skew) + by * sin(skew), -bx * sin(skew) + by * cos(skew))
        return try turned.cropped(
            to: PixelBox(
                x: max(0, Int((cx + tx - Double(box.width) / 2).rounded())),
                y: max(0, Int((cy + ty - Double(box.height) / 2).rounded())), width: box.width, height: box.height))
    }

    /// Slant Tesseract reads through unaided: about 1.5 degrees, a character height across a
    /// line of 40 characters.
    static let minSkew = 1.5 * Double.pi / 180
    /// Pixels added to the margin the turn brings into the box: two. Chosen by hand, not fitted
    /// (decision 1).
    static let levelMargin = 2
}
