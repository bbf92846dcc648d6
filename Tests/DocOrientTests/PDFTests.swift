import Testing

@testable import DocOrient

struct PDFTests {
    /// A PDF of `objects` (object 1 the catalog), with a correct cross-reference table.
    static func pdf(_ objects: [String]) -> [UInt8] {
        var out = Array("%PDF-1.7\n".utf8)
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = out.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { table += String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n" }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return out + Array(table.utf8)
    }

    /// One page painting a 4 x 2 grey image with `matrix`, `/Rotate` on the page tree's root.
    static func onePage(matrix: String, inheritedRotate: Int) -> [UInt8] {
        let content = "q \(matrix) cm /Im0 Do Q"
        return pdf([
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 /Rotate \(inheritedRotate) >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R /Resources << /XObject << /Im0 5 0 "
                + "R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /XObject /Subtype /Image /Width 4 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 "
                + "/Length 8 >>\nstream\n\u{0}\u{0}\u{0}\u{0}\u{7f}\u{7f}\u{7f}\u{7f}\nendstream",
        ])
    }

    @Test(arguments: [
        ([400.0, 0, 0, 200, 0, 0], Orientation.identity),
        ([-400.0, 0, 0, 200, 400, 0], .flipHorizontal),
        ([-400.0, 0, 0, -200, 400, 200], .rotate180),
        ([400.0, 0, 0, -200, 0, 200], .flipVertical),
        ([0.0, -400, 200, 0, 0, 400], .rotate90),
        ([0.0, 400, -200, 0, 200, 0], .rotate270),
    ])
    func theCmMatrixPlacesTheImageAsTheGroupElementItDraws(matrix: [Double], expected: Orientation) {
        #expect(PDFPlacement.placement(ofMatrix: matrix) == expected)
    }

    @Test func aMatrixThatTurnsByAnOddAngleOrSkewsPlacesNothing() {
        #expect(PDFPlacement.placement(ofMatrix: [0.7071, 0.7071, -0.7071, 0.7071, 0, 0]) == nil)
        #expect(PDFPlacement.placement(ofMatrix: [100, 0, 30, 100, 0, 0]) == nil)
        #expect(PDFPlacement.placement(ofMatrix: [0, 0, 0, 0, 0, 0]) == nil)
        #expect(PDFPlacement.placement(ofMatrix: [100, 0.01, 0, 100, 0, 0]) == .identity)
    }

    @Test func theTurnShowsTheTargetWithAMirrorOnlyWhereRotateCannot() {
        for placement in Orientation.allCases {
            for rotate in [0, 90, 180, 270] {
                let rotation = PDFPlacement.rotation(degrees: rotate)!
                let page = PDFPlacement(placement: placement, rotation: rotation)
                for target in Orientation.allCases {
                    let turn = page.turn(showing: target)
                    #expect(!turn.rotation.isMirrored)
                    #expect(placement.followed(by: turn.mirror ?? .identity).followed(by: turn.rotation) == target)
                    #expect((turn.mirror != nil) == (placement.isMirrored != target.isMirrored))
                    #expect(turn.mirror == nil || turn.mirror == .flipHorizontal || turn.mirror == .flipVertical)
                    // A mirror that keeps the page's /Rotate is the one taken, where there is one.
                    if turn.mirror != nil, turn.rotation != rotation {
                        #expect(
                            ![Orientation.flipHorizontal, .flipVertical].contains {
                                placement.followed(by: $0).followed(by: rotation) == target
                            })
                    }
                }
            }
        }
        #expect(PDFPlacement.rotation(degrees: -90) == .rotate270)
        #expect(PDFPlacement.rotation(degrees: 450) == .rotate90)
        #expect(PDFPlacement.rotation(degrees: 45) == nil)
    }

    @Test func theMirrorIsAboutTheCentreOfTheCropBoxClippedToTheMediaBox() {
        // A page at the origin: x -> 612 - x.
        #expect(
            PDFTurn.mirrorMatrix(.flipHorizontal, mediaBox: [0, 0, 612, 792], cropBox: nil) == [-1, 0, 0, 1, 612, 0])
        #expect(
            PDFTurn.mirrorMatrix(.flipVertical, mediaBox: [0, 0, 612, 792], cropBox: nil) == [1, 0, 0, -1, 0, 792])
        // Away from the origin, corners stored the other way round, a crop box inside.
        #expect(
            PDFTurn.mirrorMatrix(.flipHorizontal, mediaBox: [700, 900, 100, 50], cropBox: [200, 100, 400, 300])
                == [-1, 0, 0, 1, 600, 0])
        // A crop box reaching past the media box is clipped to it (ISO 32000-1, 14.11.2).
        #expect(
            PDFTurn.mirrorMatrix(.flipVertical, mediaBox: [0, 0, 612, 792], cropBox: [-100, 400, 700, 1000])
                == [1, 0, 0, -1, 0, 1192])
        #expect(PDFTurn.mirrorMatrix(.flipVertical, mediaBox: [0, 0, 612, 792], cropBox: [700, 0, 800, 792]) == nil)
        #expect(PDFTurn.mirrorMatrix(.flipVertical, mediaBox: nil, cropBox: nil) == nil)
        #expect(PDFTurn.mirrorMatrix(.rotate90, mediaBox: [0, 0, 612, 792], cropBox: nil) == nil)
    }

    @Test func samplesBecomeGreyPixelsWhateverTheirLayout() throws {
        // 1 bit, rows padded to a byte: 1 is white.
        let bits = try PDFSamples.gray(
            [0b1010_0000, 0b0101_0000], width: 4, height: 2, bitsPerComponent: 1, components: 1, inverted: false)
        #expect(bits.pixels == [255, 0, 255, 0, 0, 255, 0, 255])
        let inverted = try PDFSamples.gray(
            [0b1010_0000, 0b0101_0000], width: 4, height: 2, bitsPerComponent: 1, components: 1, inverted: true)
        #expect(inverted.pixels == [0, 255, 0, 255, 255, 0, 255, 0])
        let rgb = try PDFSamples.gray(
            [255, 255, 255, 0, 0, 0], width: 2, height: 1, bitsPerComponent: 8, components: 3, inverted: false)
        #expect(rgb.pixels == [255, 0])
        let cmyk = try PDFSamples.gray(
            [0, 0, 0, 0, 0, 0, 0, 255], width: 2, height: 1, bitsPerComponent: 8, components: 4, inverted: false)
        #expect(cmyk.pixels == [255, 0])
        #expect(throws: DocOrientError.self) {
            try PDFSamples.gray([0], width: 4, height: 2, bitsPerComponent: 8, components: 1, inverted: false)
        }
        #expect(throws: DocOrientError.self) {
            try PDFSamples.gray([0, 0], width: 1, height: 1, bitsPerComponent: 8, components: 2, inverted: false)
        }
    }

    @Test func aPageReadsItsInheritedRotateAndTheTransformAtItsImage() throws {
        let document = try PDFDocument(
            bytes: Self.onePage(matrix: "0 -400 200 0 0 400", inheritedRotate: 270), maxPages: 10)
        #expect(document.pageCount == 1)
        let page = try document.describePage(0, maxContentBytes: 1 << 20)
        #expect(page.rotate == 270 && page.rotateIsInteger)
        #expect(page.matrix == [0, -400, 200, 0, 0, 400])
        #expect(page.images == 1 && page.width == 4 && page.height == 2 && page.components == 1)
        #expect(page.filter == .samples)
        #expect(try document.imageData(page: 0, maxBytes: 100) == [0, 0, 0, 0, 127, 127, 127, 127])
        #expect(throws: DocOrientError.self) { try document.imageData(page: 0, maxBytes: 4) }
    }

    @Test func writingANewRotateKeepsEveryStreamAndReadsBack() throws {
        let original = Self.onePage(matrix: "400 0 0 200 0 0", inheritedRotate: 90)
        let document = try PDFDocument(bytes: original, maxPages: 10)
        _ = try document.describePage(0, maxContentBytes: 1 << 20)
        try document.setRotate(page: 0, degrees: 180)
        let written = try document.written()
        let again = try PDFDocument(bytes: written, maxPages: 10)
        let page = try again.describePage(0, maxContentBytes: 1 << 20)
        #expect(page.rotate == 180)
        #expect(try again.imageData(page: 0, maxBytes: 100) == [0, 0, 0, 0, 127, 127, 127, 127])
        let content = Array("q 400 0 0 200 0 0 cm /Im0 Do Q".utf8)
        #expect((0...(written.count - content.count)).contains { Array(written[$0..<$0 + content.count]) == content })
    }

    @Test func aTransformDrawnAroundTheContentKeepsItsStreamAndReadsBackAtTheImage() throws {
        let original = Self.onePage(matrix: "400 0 0 200 0 0", inheritedRotate: 0)
        let document = try PDFDocument(bytes: original, maxPages: 10)
        let before = try document.describePage(0, maxContentBytes: 1 << 20)
        #expect(before.mediaBox == [0, 0, 400, 200] && before.cropBox == before.mediaBox)
        #expect(before.annotations == 0 && before.unbalancedRestores == 0)
        try document.transformContents(page: 0, matrix: [-1, 0, 0, 1, 400, 0])
        let written = try document.written()
        let page = try PDFDocument(bytes: written, maxPages: 10).describePage(0, maxContentBytes: 1 << 20)
        #expect(page.matrix == [-400, 0, 0, 200, 400, 0])
        #expect(PDFPlacement.placement(ofMatrix: page.matrix!) == .flipHorizontal)
        let text = String(decoding: written, as: UTF8.self)
        for stream in [
            "stream\nq -1 0 0 1 400 0 cm\n", "stream\nq 400 0 0 200 0 0 cm /Im0 Do Qendstream", "stream\n\nQ\n",
        ] {
            #expect(text.contains(stream), "\(stream)")
        }
        #expect(text.contains("/Contents ["))
    }

    @Test func aPageThatRestoresMoreStatesThanItSavesSaysSo() throws {
        let document = try PDFDocument(
            bytes: Self.onePage(matrix: "400 0 0 200 0 0 cm Q Q q 400 0 0 200 0 0", inheritedRotate: 0), maxPages: 10)
        #expect(try document.describePage(0, maxContentBytes: 1 << 20).unbalancedRestores == 1)
    }

    @Test func encryptedDamagedAndOverLongPDFsThrowTheirCodes() {
        func code(_ bytes: [UInt8], maxPages: Int = 10) -> DocOrientError.Code? {
            do {
                _ = try PDFDocument(bytes: bytes, maxPages: maxPages)
                return nil
            } catch let error as DocOrientError {
                return error.code
            } catch {
                return .library
            }
        }
        let good = Self.onePage(matrix: "400 0 0 200 0 0", inheritedRotate: 0)
        #expect(code(good) == nil)
        #expect(code(Array(good.prefix(good.count / 2))) == .malformed)
        #expect(code(good, maxPages: 0) == .limitExceeded)
        #expect(code(Array("%PDF-1.7\nnothing".utf8)) == .malformed)
        #expect(PDFPages.isPDF(good) && PDFPages.isPDF(Array("junk\n".utf8) + good) && !PDFPages.isPDF([0xFF, 0xD8]))
    }
}
