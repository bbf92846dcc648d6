import Testing

@testable import DocOrient

/// The text lines the resolver reads first are the page's own lines: found in either direction,
/// with most of the text on the axis the page reads along, even where a minority of it runs at a
/// quarter turn (tear-off tabs, vertical labels, rotated table headers, a margin note and stamp).
struct TextLineTests {
    static let minority = ResolverSample.all.filter {
        ["flyer", "vlabels", "rotheads", "marginnote"].contains($0.kind)
    }

    @Test func theSamplesWithMinorityTextArePresent() {
        #expect(Self.minority.count == 4)
    }

    /// The lines the line stage reads on a committed sample, as the resolver finds them.
    static func lines(of sample: ResolverSample) throws -> AnalysisImage? {
        let bytes = try sample.bytes()
        let source = try GraySource(bytes: bytes, metadata: try ImageMetadata.read(bytes), maxPixels: 100_000_000)
        let c = Calibration.embedded
        let survey = try AnalysisImage.Survey(source: source, parameters: c.analysis, lines: true)
        return try AnalysisImage.lines(
            source: source, survey: survey, parameters: c.analysis, count: c.cascade.maxLines)
    }

    @Test func aLongLineIsReadOnlyAboutItsMiddle() throws {
        // A typed letter's lines run 50 heights and more; a read takes 32 (`TextLine.maxReadLength`).
        let sample = try #require(ResolverSample.all.first { $0.kind == "letter" })
        guard let lines = try Self.lines(of: sample) else {
            Issue.record("no text lines found")
            return
        }
        let c = Calibration.embedded
        let longest = lines.windows.map { max($0.width, $0.height) }.max() ?? 0
        // Its lines are some 70 reading heights long (1,556 pixels at 22): read, 32 and a margin.
        #expect(Double(longest) <= 33 * lines.textHeight, "\(lines.windows)")
        #expect(Double(longest) >= 16 * c.analysis.minTextHeight, "\(lines.windows)")
    }

    @Test(arguments: minority)
    func mostOfTheLinesTextRunsAlongThePagesAxis(_ sample: ResolverSample) throws {
        guard let lines = try Self.lines(of: sample) else {
            Issue.record("no text lines found")
            return
        }
        // The upright orientation's quarter turns say which stored axis the page's lines run along.
        let alongX = try #require(Orientation(exifValue: sample.upright)).quarterTurns % 2 == 0
        let (along, across) =
            alongX ? (lines.horizontalPairs, lines.verticalPairs) : (lines.verticalPairs, lines.horizontalPairs)
        #expect(along > across, "marks in lines along the page's axis \(along), across it \(across)")
        #expect(lines.windowAlongX.contains(alongX))
    }
}

/// What is not a line of text.
struct NotTextLineTests {
    /// Twelve letters 20 pixels high, 16 apart, in a row at `y`.
    static func letters(y: Int) -> [PixelBox] {
        (0..<12).map { PixelBox(x: 40 + $0 * 16, y: y, width: 12, height: 20) }
    }

    /// Words whose letters touch, one mark each, 20 high and `lengths` long, 8 apart, in a row at `y`.
    static func words(_ lengths: [Int], y: Int) -> [PixelBox] {
        var x = 40
        return lengths.map { length in
            defer { x += length + 8 }
            return PixelBox(x: x, y: y, width: length, height: 20)
        }
    }

    /// The text lines of `marks`, along `page` or else the direction their links give.
    static func lines(_ marks: [PixelBox], page: LineAngle? = nil) throws -> [TextLine] {
        let measure = AnalysisImage.measureGlyphs(marks, lines: true)
        return measure.textLines(page: try page ?? #require(measure.pageLines))
    }

    @Test func aLoneRuleIsNotALineOfText() throws {
        // A line of twelve letters 20 pixels high, and under it a form's rule: one mark 4 pixels
        // thick and 300 long, 75 of its own heights (0216_vlabels of the seed-23 set: five of its
        // eight lines were rules, ranked first by their length over their thickness).
        let lines = try Self.lines(Self.letters(y: 100) + [PixelBox(x: 40, y: 160, width: 300, height: 4)])
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.marks == 12)
    }

    @Test func aWordWhoseLettersTouchIsStillALine() throws {
        // One mark six heights long: a blurred word of some ten letters.
        let lines = try Self.lines(Self.letters(y: 100) + Self.words([120], y: 160))
        #expect(lines.count == 2, "\(lines)")
    }

    @Test func aDashedLeaderIsNotALineOfText() throws {
        // A line of letters, and under it a form's leader of twenty identical dashes, each three
        // times as long as it is thick (0021_form of the seed-23 set).
        let dashes = (0..<20).map { PixelBox(x: 40 + $0 * 16, y: 160, width: 12, height: 4) }
        let lines = try Self.lines(Self.letters(y: 100) + dashes)
        #expect(lines.map(\.marks) == [12], "\(lines)")
    }

    @Test func aRowOfDotsIsNotALineOfText() throws {
        // Two lines of letters 20 pixels high, and under them a menu's leader: sixteen dots 5
        // pixels across, a height apart, so that they chain like letters; they are a quarter of
        // the letters' height (0100_menu of the seed-23 set read six leaders before any dish).
        let dots = (0..<16).map { PixelBox(x: 40 + $0 * 10, y: 190, width: 5, height: 5) }
        let lines = try Self.lines(Self.letters(y: 100) + Self.letters(y: 140) + dots)
        #expect(lines.map(\.marks) == [12, 12], "\(lines)")
    }

    @Test func wordsWhoseLettersTouchAreALineOfText() throws {
        // Blurred print: each word one mark, longer than high, of the lengths words have.
        let lines = try Self.lines(Self.words([30, 62, 44, 20, 75, 50, 36, 58], y: 100) + Self.letters(y: 160))
        #expect(lines.map(\.marks).sorted() == [8, 12], "\(lines)")
    }

    @Test func aBoldParagraphIsReadAlongItsLinesNotDownItsColumns() throws {
        // Bold print whose letters touch: each word one mark, 20 high and 42-64 long, 8 apart
        // along a line, lines 24 apart. Centre to centre the word below is nearer than the next
        // word (0169_phototext of the seed-23 set was chained down its columns and read nothing).
        let rows = [[44, 62, 50, 58, 42], [56, 42, 64, 48, 52], [58, 46, 42, 60, 50]]
        let words = rows.enumerated().flatMap { Self.words($0.element, y: 100 + $0.offset * 24) }
        // The page's lines run along x (on a page the heading's and the other paragraphs' letters
        // say so; here it is given).
        let lines = try Self.lines(words, page: LineAngle(radians: 0))
        #expect(lines.map(\.marks) == [5, 5, 5], "\(lines)")
        #expect(lines.allSatisfy { $0.direction.alongX })
    }
}
