// The strips an analysis image is pasted together in: text windows (`AnalysisImage.make`) and
// text lines (`AnalysisImage.lines`) alike are cut, scaled and light corrected one by one, then
// pasted side by side into one grey strip for Tesseract and one binary strip for measuring.

/// Two strips of one size, allocated generously and cut to what was used: the grey one Tesseract
/// reads (paper grey where nothing was pasted) and its binary twin (ink = 1), with the box of every
/// piece pasted into both, in the order they were pasted.
/// Owns its Leptonica images: not copyable, used by one thread.
struct StripBuilder: ~Copyable {
    let width: Int
    let height: Int
    private let readable: Pix
    private let binary: Pix
    /// The box of each piece pasted, in strip pixels, in paste order.
    private(set) var placed: [PixelBox] = []

    /// Empty strips `width` x `height`: the grey one filled with `AnalysisImage.paperGray`.
    init(width: Int, height: Int) throws {
        let readable = try Pix.blank(width: width, height: height, depth: 8)
        readable.fill(gray: AnalysisImage.paperGray)
        let binary = try Pix.blank(width: width, height: height, depth: 1)
        self.width = width
        self.height = height
        self.readable = readable
        self.binary = binary
    }

    /// Whether a piece `width` x `height` with its top left corner at (x, y) lies inside the strips.
    func fits(width: Int, height: Int, x: Int, y: Int) -> Bool {
        x + width <= self.width && y + height <= self.height
    }

    /// Pastes `gray` into the grey strip and `binary`, its binarised twin, into the binary one,
    /// both with their top left corner at (x, y), and records the grey piece's box.
    mutating func paste(gray: borrowing Pix, binary ink: borrowing Pix, x: Int, y: Int) {
        readable.paste(gray, x: x, y: y)
        binary.paste(ink, x: x, y: y)
        placed.append(PixelBox(x: x, y: y, width: gray.width, height: gray.height))
    }

    /// The part in use: from the top left corner to the farthest edge of any pasted piece; one
    /// pixel when nothing was pasted.
    var used: PixelBox {
        PixelBox(
            x: 0, y: 0, width: max(1, placed.map(\.maxX).max() ?? 1), height: max(1, placed.map(\.maxY).max() ?? 1))
    }

    /// The grey strip cut to `used`.
    func usedReadable() throws -> Pix { try readable.cropped(to: used) }

    /// The binary strip cut to `used`.
    func usedBinary() throws -> Pix { try binary.cropped(to: used) }
}
