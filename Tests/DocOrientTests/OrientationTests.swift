import Testing

@testable import DocOrient

struct OrientationTests {
    /// Applies `o`'s display transform to pixel-centre coordinates of a W x H grid, as a viewer would.
    func displayed(_ p: Point, by o: Orientation, size: Size) -> Point {
        o.displayPoint(fromStored: p, storedSize: size)
    }

    @Test func everyPairComposesAsTheGroupSays() {
        let size = Size(width: 7, height: 3)
        let probes = [Point(x: 0.5, y: 0.5), Point(x: 6.5, y: 0.5), Point(x: 2.5, y: 1.5), Point(x: 0.5, y: 2.5)]
        for a in Orientation.allCases {
            for b in Orientation.allCases {
                let ab = a.followed(by: b)
                for p in probes {
                    let twoSteps = displayed(
                        displayed(p, by: a, size: size), by: b, size: a.displaySize(forStored: size))
                    #expect(twoSteps == displayed(p, by: ab, size: size), "\(a) then \(b) should be \(ab)")
                }
            }
        }
    }

    @Test func inversesUndoAndFollowTheDomainFacts() {
        for o in Orientation.allCases {
            #expect(o.followed(by: o.inverse) == .identity)
            #expect(o.inverse.followed(by: o) == .identity)
        }
        #expect(Orientation.transpose.inverse == .transpose)
        #expect(Orientation.transverse.inverse == .transverse)
        #expect(Orientation.rotate90.inverse == .rotate270)
        #expect(Orientation.rotate180.followed(by: .rotate180) == .identity)
        #expect(Orientation.rotate90.followed(by: .rotate90) == .rotate180)
        #expect(Orientation.flipHorizontal.followed(by: .rotate180) == .flipVertical)
    }

    @Test func theRectTableOfDomainMDHoldsInBothDirections() {
        // ../shared/DOMAIN.md section 1: raw rect for a display rect (x, y, w, h) on a W x H raw image.
        func table(_ o: Orientation, _ r: Rect, _ W: Double, _ H: Double) -> Rect {
            let (x, y, w, h) = (r.x, r.y, r.width, r.height)
            switch o {
            case .identity: return Rect(x: x, y: y, width: w, height: h)
            case .flipHorizontal: return Rect(x: W - x - w, y: y, width: w, height: h)
            case .rotate180: return Rect(x: W - x - w, y: H - y - h, width: w, height: h)
            case .flipVertical: return Rect(x: x, y: H - y - h, width: w, height: h)
            case .transpose: return Rect(x: y, y: x, width: h, height: w)
            case .rotate90: return Rect(x: y, y: H - x - w, width: h, height: w)
            case .transverse: return Rect(x: W - y - h, y: H - x - w, width: h, height: w)
            case .rotate270: return Rect(x: W - y - h, y: x, width: h, height: w)
            }
        }
        var rng = SystemRandomNumberGenerator()
        for o in Orientation.allCases {
            for _ in 0..<200 {
                let raw = Size(
                    width: Double(Int.random(in: 1...4000, using: &rng)),
                    height: Double(Int.random(in: 1...4000, using: &rng)))
                let shown = o.displaySize(forStored: raw)
                let w = Double.random(in: 0...shown.width, using: &rng),
                    h = Double.random(in: 0...shown.height, using: &rng)
                let display = Rect(
                    x: Double.random(in: 0...(shown.width - w), using: &rng),
                    y: Double.random(in: 0...(shown.height - h), using: &rng), width: w, height: h)
                let stored = o.storedRect(fromDisplay: display, storedSize: raw)
                let expected = table(o, display, raw.width, raw.height)
                #expect(abs(stored.x - expected.x) < 1e-6 && abs(stored.y - expected.y) < 1e-6, "\(o)")
                #expect(
                    abs(stored.width - expected.width) < 1e-6 && abs(stored.height - expected.height) < 1e-6, "\(o)")
                let back = o.displayRect(fromStored: stored, storedSize: raw)
                #expect(
                    abs(back.x - display.x) < 1e-6 && abs(back.y - display.y) < 1e-6
                        && abs(back.width - display.width) < 1e-6, "\(o)")
            }
        }
    }

    @Test func conversionsMatchTheDomainTable() {
        let ui = [1: 0, 2: 4, 3: 1, 4: 5, 5: 6, 6: 3, 7: 7, 8: 2]
        let ops = [
            1: "TJXOP_NONE", 2: "TJXOP_HFLIP", 3: "TJXOP_ROT180", 4: "TJXOP_VFLIP", 5: "TJXOP_TRANSPOSE",
            6: "TJXOP_ROT90", 7: "TJXOP_TRANSVERSE", 8: "TJXOP_ROT270",
        ]
        for o in Orientation.allCases {
            #expect(o.uiImageOrientationRawValue == ui[o.exifValue])
            #expect(Orientation(uiImageOrientationRawValue: o.uiImageOrientationRawValue) == o)
            #expect(o.turboJPEGOperationName == ops[o.exifValue])
            #expect(Orientation(degreesClockwise: o.degreesClockwise, mirrored: o.isMirrored) == o)
        }
        #expect(Orientation(degreesClockwise: 90) == .rotate90)
        #expect(Orientation(degreesClockwise: -90) == .rotate270)
        #expect(Orientation(degreesClockwise: 450) == .rotate90)
        #expect(Orientation(degreesClockwise: 45) == nil)
    }

    @Test(arguments: [0, 9, 10, 255, 65535, -1])
    func valuesOutsideOneToEightAreNoUsableTag(value: Int) {
        #expect(Orientation(exifValue: value) == nil)
    }
}
