// The marks a probe finds and how they relate: a glyph (a character-like mark), the link from a
// mark to its nearest neighbour of similar size, and the direction text lines run in, which the
// links measure whatever the page's slant.

/// One character-like mark on the page, in analysis-image pixels.
package struct Glyph: Sendable, Equatable {
    package var box: PixelBox
    /// Direction to its nearest neighbour of similar size (`NeighbourLink.angle`), nil when none.
    var direction: Double? = nil
    var centerX: Double { Double(box.x) + Double(box.width) / 2 }
    var centerY: Double { Double(box.y) + Double(box.height) / 2 }
}

/// A mark and its nearest neighbour of similar size: in text, mostly the next letter (or word)
/// of the same line, whatever the line's direction (O'Gorman's docstrum).
package struct NeighbourLink: Sendable, Equatable {
    /// The midpoint between the two marks' centres.
    var x: Double
    var y: Double
    /// Direction from one centre to the other, 0..<π radians (y runs down, so a positive angle
    /// turns clockwise on screen).
    package var angle: Double
    /// Index of the mark the link starts from.
    var mark: Int
    /// Index of the mark it reaches.
    var other: Int = 0
    /// Distance between the two centres.
    var length: Double

    /// Angle between two directions of lines (which have no sense), 0...π/2.
    package static func difference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: .pi)
        return min(d, .pi - d)
    }
}

/// The direction text lines run in, as the stored axis nearest to it and the slant from it.
package struct LineAngle: Sendable, Equatable {
    /// Direction of the lines, 0..<π radians from stored x, clockwise on screen.
    package var radians: Double
    /// Whether the lines run nearer stored x than stored y.
    var alongX: Bool { radians < .pi / 4 || radians >= 3 * .pi / 4 }
    /// How far the lines are turned clockwise from that axis, -π/4...π/4 radians. A line along
    /// y turned clockwise by θ runs along (-sin θ, cos θ), whose direction is π/2 + θ.
    package var skew: Double {
        if alongX { return radians < .pi / 4 ? radians : radians - .pi }
        return radians - .pi / 2
    }
}

extension [Glyph] {
    /// The smallest box holding every glyph, as (x0, y0, x1, y1); nil when there are none.
    var extent: (x0: Int, y0: Int, x1: Int, y1: Int)? {
        guard let first else { return nil }
        var e = (x0: first.box.x, y0: first.box.y, x1: first.box.maxX, y1: first.box.maxY)
        for g in self {
            e = (
                Swift.min(e.x0, g.box.x), Swift.min(e.y0, g.box.y), Swift.max(e.x1, g.box.maxX),
                Swift.max(e.y1, g.box.maxY)
            )
        }
        return e
    }
}
