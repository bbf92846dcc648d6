/// The boxes of a HEIF file (HEIC, AVIF) that concern orientation: the primary item, its
/// properties (`ispe`, and the transformative `irot` and `imir` a viewer applies in their
/// association order), the item locations a rewrite has to keep valid, and the Exif item.
///
/// In HEIF the displayed orientation is the container's: the EXIF orientation inside is
/// informational, and viewers that honour both would turn the image twice.
struct HEIFStructure: Sendable {
    /// The brands that say a file holds HEIF images (the major brand or any compatible one).
    static let imageBrands: Set<String> = [
        "mif1", "mif2", "heic", "heix", "heim", "heis", "hevc", "hevx", "avif", "miaf",
    ]

    struct Item: Sendable {
        var type: String
        var hidden: Bool
        /// A `mime` item's content type ("application/rdf+xml" for XMP) and encoding ("" or "deflate").
        var contentType: String = ""
        var contentEncoding: String = ""
    }

    /// One association of an item with a property: `index` counts ipco's children from 1 (0: none).
    struct Association: Sendable, Equatable {
        var essential: Bool
        var index: Int
    }

    /// The parsed `ipma` box: which properties each item has, in order.
    struct Associations: Sendable {
        var version: Int
        var flags: Int
        var entries: [(item: Int, associations: [Association])]
    }

    /// Where a number in `iloc` lies, so a rewrite that moves the data can change it in place.
    struct Field: Sendable, Equatable {
        /// Absolute offset of the field.
        var at: Int
        /// Its width in bytes: 0 (absent, the value is 0), 4 or 8.
        var size: Int
    }

    struct Extent: Sendable {
        var offset: Int
        var length: Int
        var offsetField: Field
    }

    /// One item's entry in `iloc`.
    struct Location: Sendable {
        var item: Int
        /// 0: offsets count from the file's start; 1: from the `idat` payload; 2: from another item.
        var constructionMethod: Int
        var dataReferenceIndex: Int
        var baseOffset: Int
        var baseOffsetField: Field
        var extents: [Extent]
    }

    var topLevel: [ISOBox]
    var majorBrand: String
    var meta: ISOBox
    var metaChildren: [ISOBox]
    var primaryItem: Int
    var items: [Int: Item]
    var locations: [Location]
    var ilocVersion: Int
    var iprp: ISOBox
    var ipco: ISOBox
    /// ipco's children: property index i is `properties[i - 1]`.
    var properties: [ISOBox]
    var ipma: ISOBox
    var associations: Associations
    var idat: ISOBox?
    /// Items that are thumbnails of the primary image (`thmb` references).
    var thumbnails: [Int]
    /// Every `iref` reference, in file order.
    var references: [Reference]
    /// The primary image's stored size (`ispe`, before any transformation).
    var width: Int
    var height: Int

    /// The most items docorient reads (iPhone photos hold about 50, for their grid tiles).
    static let maxItems = 65_536

    /// Parses a HEIF file's top-level boxes and its `meta` box.
    /// - Throws: `.unsupportedFormat` for ISO media files that are no HEIF image; `.malformed`
    ///   naming the box for a broken structure.
    static func parse(_ b: [UInt8]) throws -> HEIFStructure {
        let top = try ISOBox.children(b, in: 0..<b.count, topLevel: true, parent: "file")
        guard let ftyp = top.first, ftyp.type == "ftyp", ftyp.payload.count >= 8 else {
            throw DocOrientError(.malformed, "the file does not start with a valid 'ftyp' box")
        }
        let major = ISOBox.fourCC(b, ftyp.payload.lowerBound)
        let metas = top.filter { $0.type == "meta" }
        guard metas.count == 1, let meta = metas.first else {
            throw DocOrientError(
                metas.isEmpty ? .unsupportedFormat : .malformed,
                metas.isEmpty
                    ? "unsupported format: HEIF file (brand '\(major)') without a still image ('meta' box): an image "
                        + "sequence, a video or a broken file"
                    : "the file has \(metas.count) top-level 'meta' boxes")
        }
        guard meta.payload.count >= 4 else { throw DocOrientError(.malformed, "the 'meta' box is cut off") }
        let children = try ISOBox.children(b, in: (meta.payload.lowerBound + 4)..<meta.end, parent: "meta")
        func only(_ type: String, in boxes: [ISOBox], of parent: String) throws -> ISOBox {
            let found = boxes.filter { $0.type == type }
            guard found.count == 1, let box = found.first else {
                throw DocOrientError(
                    .malformed,
                    found.isEmpty
                        ? "the '\(parent)' box has no '\(type)' box"
                        : "the '\(parent)' box has \(found.count) '\(type)' boxes")
            }
            return box
        }
        let hdlr = try only("hdlr", in: children, of: "meta")
        var reader = BoxReader(b, hdlr.payload, box: "hdlr")
        _ = try reader.fullBoxHeader()
        try reader.skip(4)
        let handler = ISOBox.fourCC(b, reader.at)
        guard handler == "pict" else {
            throw DocOrientError(
                .unsupportedFormat,
                "unsupported format: ISO media file whose 'meta' handler is '\(handler)', not an image ('pict')")
        }
        let primary = try parsePrimary(b, try only("pitm", in: children, of: "meta"))
        let items = try parseItems(b, try only("iinf", in: children, of: "meta"))
        let iloc = try only("iloc", in: children, of: "meta")
        let (ilocVersion, locations) = try parseLocations(b, iloc)
        let iprp = try only("iprp", in: children, of: "meta")
        let iprpChildren = try ISOBox.children(b, in: iprp.payload, parent: "iprp")
        let ipco = try only("ipco", in: iprpChildren, of: "iprp")
        let ipma = try only("ipma", in: iprpChildren, of: "iprp")
        let properties = try ISOBox.children(b, in: ipco.payload, parent: "ipco")
        let associations = try parseAssociations(b, ipma, propertyCount: properties.count)
        let idats = children.filter { $0.type == "idat" }
        guard idats.count <= 1 else {
            throw DocOrientError(.malformed, "the 'meta' box has \(idats.count) 'idat' boxes")
        }
        let irefs = children.filter { $0.type == "iref" }
        guard irefs.count <= 1 else {
            throw DocOrientError(.malformed, "the 'meta' box has \(irefs.count) 'iref' boxes")
        }
        let references = try irefs.first.map { try parseReferences(b, $0) } ?? []
        try checkDerivationsEnd(references)
        let thumbnails = references.filter { $0.type == "thmb" && $0.to.contains(primary) }.map(\.from)
        guard items[primary] != nil else {
            throw DocOrientError(.malformed, "the primary item \(primary) has no 'infe' entry")
        }
        var s = HEIFStructure(
            topLevel: top, majorBrand: major, meta: meta, metaChildren: children, primaryItem: primary, items: items,
            locations: locations, ilocVersion: ilocVersion, iprp: iprp, ipco: ipco, properties: properties, ipma: ipma,
            associations: associations, idat: idats.first, thumbnails: thumbnails, references: references, width: 0,
            height: 0)
        guard let ispe = s.primaryProperties.first(where: { $0.box.type == "ispe" })?.box, ispe.payload.count >= 12,
            let w = Bytes.u32(b, ispe.payload.lowerBound + 4, bigEndian: true),
            let h = Bytes.u32(b, ispe.payload.lowerBound + 8, bigEndian: true), w > 0, h > 0
        else {
            throw DocOrientError(.malformed, "the primary image (item \(primary)) has no valid size ('ispe' property)")
        }
        s.width = w
        s.height = h
        return s
    }

    private static func parsePrimary(_ b: [UInt8], _ pitm: ISOBox) throws -> Int {
        var r = BoxReader(b, pitm.payload, box: "pitm")
        let (version, _) = try r.fullBoxHeader()
        return try r.uint(version == 0 ? 2 : 4)
    }

    private static func parseItems(_ b: [UInt8], _ iinf: ISOBox) throws -> [Int: Item] {
        var r = BoxReader(b, iinf.payload, box: "iinf")
        let (version, _) = try r.fullBoxHeader()
        let count = try r.uint(version == 0 ? 2 : 4)
        guard count <= maxItems else {
            throw DocOrientError(.limitExceeded, "the file declares \(count) items, over \(maxItems)")
        }
        var items: [Int: Item] = [:]
        for infe in try ISOBox.children(b, in: r.at..<iinf.end, parent: "iinf") where infe.type == "infe" {
            var e = BoxReader(b, infe.payload, box: "infe")
            let (v, flags) = try e.fullBoxHeader()
            // Versions 0 and 1 predate item types: such an item is none of the kinds docorient edits.
            guard v >= 2 else { continue }
            let id = try e.uint(v == 2 ? 2 : 4)
            try e.skip(2)  // item_protection_index
            let type = ISOBox.fourCC(b, e.at)
            try e.skip(4)
            guard items[id] == nil else { throw DocOrientError(.malformed, "item \(id) has two 'infe' entries") }
            var item = Item(type: type, hidden: flags & 1 != 0)
            if type == "mime" {
                e.skipString()  // item_name
                item.contentType = e.string()
                item.contentEncoding = e.string()
            }
            items[id] = item
        }
        return items
    }

    static func parseLocations(_ b: [UInt8], _ iloc: ISOBox) throws -> (Int, [Location]) {
        var r = BoxReader(b, iloc.payload, box: "iloc")
        let (version, _) = try r.fullBoxHeader()
        guard version <= 2 else { throw DocOrientError(.malformed, "the 'iloc' box has unknown version \(version)") }
        let sizes = try r.u8(), more = try r.u8()
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseOffsetSize = more >> 4
        let indexSize = version == 0 ? 0 : more & 15
        for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(size) {
            throw DocOrientError(.malformed, "the 'iloc' box uses a \(size)-byte field (only 0, 4 and 8 exist)")
        }
        let count = try r.uint(version < 2 ? 2 : 4)
        guard count <= maxItems else {
            throw DocOrientError(.limitExceeded, "the 'iloc' box lists \(count) items, over \(maxItems)")
        }
        var locations: [Location] = []
        for _ in 0..<count {
            let item = try r.uint(version < 2 ? 2 : 4)
            let method = version == 0 ? 0 : (try r.u16()) & 15
            let reference = try r.u16()
            let baseField = Field(at: r.at, size: baseOffsetSize)
            let base = try r.uint(baseOffsetSize)
            let extentCount = try r.u16()
            // Every extent's fields must be in the box; with all sizes 0 an extent takes no bytes
            // (offset 0, length 0: the whole file), and more than one of those says nothing more.
            let extentSize = indexSize + offsetSize + lengthSize
            guard extentSize == 0 ? extentCount <= 1 : extentCount <= r.remaining / extentSize else {
                throw DocOrientError(.malformed, "item \(item) claims \(extentCount) extents in a cut-off 'iloc' box")
            }
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                try r.skip(indexSize)
                let field = Field(at: r.at, size: offsetSize)
                let offset = try r.uint(offsetSize)
                extents.append(Extent(offset: offset, length: try r.uint(lengthSize), offsetField: field))
            }
            locations.append(
                Location(
                    item: item, constructionMethod: method, dataReferenceIndex: reference, baseOffset: base,
                    baseOffsetField: baseField, extents: extents))
        }
        return (version, locations)
    }

    private static func parseAssociations(_ b: [UInt8], _ ipma: ISOBox, propertyCount: Int) throws -> Associations {
        var r = BoxReader(b, ipma.payload, box: "ipma")
        let (version, flags) = try r.fullBoxHeader()
        let count = try r.u32()
        guard count <= maxItems else {
            throw DocOrientError(.limitExceeded, "the 'ipma' box lists \(count) items, over \(maxItems)")
        }
        var entries: [(item: Int, associations: [Association])] = []
        var seen: Set<Int> = []
        for _ in 0..<count {
            let item = try r.uint(version < 1 ? 2 : 4)
            guard seen.insert(item).inserted else {
                throw DocOrientError(.malformed, "the 'ipma' box lists item \(item) twice")
            }
            let n = try r.u8()
            var list: [Association] = []
            for _ in 0..<n {
                let wide = flags & 1 != 0
                let raw = try r.uint(wide ? 2 : 1)
                let essential = raw >> (wide ? 15 : 7) == 1
                let index = raw & (wide ? 0x7FFF : 0x7F)
                guard index <= propertyCount else {
                    throw DocOrientError(
                        .malformed,
                        "the 'ipma' box gives item \(item) property \(index), but 'ipco' holds \(propertyCount)")
                }
                // Index 0 means "no property": readers skip it, a rewrite keeps it where it was.
                list.append(Association(essential: essential, index: index))
            }
            entries.append((item, list))
        }
        return Associations(version: version, flags: flags, entries: entries)
    }

    /// One `iref` entry: item `from` refers to the items `to` in the way `type` says
    /// (`dimg`: derived from them, as a grid from its tiles; `thmb`: a thumbnail of them; ...).
    struct Reference: Sendable {
        var type: String
        var from: Int
        var to: [Int]
    }

    static func parseReferences(_ b: [UInt8], _ iref: ISOBox) throws -> [Reference] {
        var r = BoxReader(b, iref.payload, box: "iref")
        let (version, _) = try r.fullBoxHeader()
        let idSize = version == 0 ? 2 : 4
        var references: [Reference] = []
        for box in try ISOBox.children(b, in: r.at..<iref.end, parent: "iref") {
            var e = BoxReader(b, box.payload, box: box.type)
            let from = try e.uint(idSize)
            let count = try e.u16()
            guard count * idSize <= e.remaining else {
                throw DocOrientError(
                    .malformed, "the '\(box.type)' reference of item \(from) claims \(count) items in a cut-off box")
            }
            references.append(
                Reference(type: box.type, from: from, to: try (0..<count).map { _ in try e.uint(idSize) }))
        }
        return references
    }

    /// How deep derived images may nest (a grid of coded tiles is 1; an overlay of grids 2).
    static let maxDerivationDepth = 8

    /// Throws when an image derives from itself through `dimg` references (a grid among its own
    /// tiles, directly or further down), or nests deeper than `maxDerivationDepth`: a decoder
    /// following them never ends, or recurses without need (libheif 1.15 follows each level on
    /// new threads and aborts the process once it runs out of them).
    static func checkDerivationsEnd(_ references: [Reference]) throws {
        var derivedFrom: [Int: [Int]] = [:]
        for r in references where r.type == "dimg" { derivedFrom[r.from, default: []] += r.to }
        // Depth-first from every derived item; an item met again on the current path is a loop.
        var done: Set<Int> = []
        for start in derivedFrom.keys.sorted() where !done.contains(start) {
            var path: [Int] = []
            var onPath: Set<Int> = []
            var stack: [(item: Int, next: Int)] = [(start, 0)]
            onPath.insert(start)
            path.append(start)
            while let top = stack.last {
                let sources = derivedFrom[top.item] ?? []
                if top.next < sources.count {
                    stack[stack.count - 1].next += 1
                    let source = sources[top.next]
                    if onPath.contains(source) {
                        let loop = (path + [source]).map(String.init).joined(separator: " -> ")
                        throw DocOrientError(
                            .malformed,
                            "item \(source) derives from itself through 'dimg' references (\(loop)): "
                                + "a loop no decoder ends"
                        )
                    }
                    if !done.contains(source) {
                        guard path.count <= maxDerivationDepth else {
                            throw DocOrientError(
                                .malformed,
                                "item \(start) derives from images nested more than \(maxDerivationDepth) deep "
                                    + "through 'dimg' references"
                            )
                        }
                        stack.append((source, 0))
                        onPath.insert(source)
                        path.append(source)
                    }
                } else {
                    stack.removeLast()
                    onPath.remove(top.item)
                    path.removeLast()
                    done.insert(top.item)
                }
            }
        }
    }

    // MARK: The primary image

    /// The primary item's associations with their property boxes, in association order.
    var primaryProperties: [(association: Association, box: ISOBox)] { properties(of: primaryItem) }

    /// An item's associations with their property boxes, in association order.
    func properties(of item: Int) -> [(association: Association, box: ISOBox)] {
        guard let entry = associations.entries.first(where: { $0.item == item }) else { return [] }
        return entry.associations.filter { $0.index > 0 }.map { ($0, properties[$0.index - 1]) }
    }

    /// What a viewer displays for `item`: its `irot` and `imir` in association order.
    func displayedOrientation(of item: Int, _ b: [UInt8]) -> Orientation {
        properties(of: item).compactMap { Self.transform(b, $0.box) }.reduce(.identity) { $0.followed(by: $1) }
    }

    /// The primary and the thumbnails (`thmb`) and auxiliary images (`auxl`: alpha, depth, gain
    /// maps) of it that display turned as it does: libheif applies an alpha image's own
    /// irot/imir, not the primary's, so these must turn together. Items with a turn of their own
    /// are left out.
    func coOrientedItems(_ b: [UInt8]) -> [Int] {
        let shown = displayedOrientation(b)
        var items = [primaryItem]
        for r in references where (r.type == "thmb" || r.type == "auxl") && r.to.contains(primaryItem) {
            if !items.contains(r.from), associations.entries.contains(where: { $0.item == r.from }),
                displayedOrientation(of: r.from, b) == shown
            {
                items.append(r.from)
            }
        }
        return items
    }

    /// The `irot` angle: anticlockwise quarter turns (0-3), read from the byte after the header.
    static func rotation(_ b: [UInt8], _ box: ISOBox) -> Int? {
        guard box.type == "irot", let v = Bytes.u8(b, box.payload.lowerBound), box.payload.count >= 1 else {
            return nil
        }
        return v & 3
    }

    /// The `imir` mode: 0 mirrors top-bottom (about a horizontal axis), 1 left-right.
    static func mirrorAxis(_ b: [UInt8], _ box: ISOBox) -> Int? {
        guard box.type == "imir", let v = Bytes.u8(b, box.payload.lowerBound), box.payload.count >= 1 else {
            return nil
        }
        return v & 1
    }

    /// The orientation one transformative property stands for, as an EXIF transform of the pixels.
    static func transform(_ b: [UInt8], _ box: ISOBox) -> Orientation? {
        if let turns = rotation(b, box) { return Orientation(mirrored: false, quarterTurns: -turns) }
        if let axis = mirrorAxis(b, box) { return axis == 1 ? .flipHorizontal : .flipVertical }
        return nil
    }

    /// What a HEIF viewer displays: the primary's `irot` and `imir` applied in association order.
    func displayedOrientation(_ b: [UInt8]) -> Orientation { displayedOrientation(of: primaryItem, b) }

    /// The primary's first `irot` angle (anticlockwise quarter turns), nil without one.
    func primaryRotation(_ b: [UInt8]) -> Int? { primaryProperties.lazy.compactMap { Self.rotation(b, $0.box) }.first }

    /// The primary's first `imir` mode, nil without one.
    func primaryMirrorAxis(_ b: [UInt8]) -> Int? {
        primaryProperties.lazy.compactMap { Self.mirrorAxis(b, $0.box) }.first
    }

    // MARK: Item data

    /// Absolute range of an item's data when it is one extent in this file (construction method
    /// 0 or 1); nil otherwise.
    func dataRange(of item: Int) -> Range<Int>? {
        guard let l = locations.first(where: { $0.item == item }), l.dataReferenceIndex == 0, l.extents.count == 1,
            let e = l.extents.first, e.length > 0
        else { return nil }
        let origin: Int
        let limit: Int
        switch l.constructionMethod {
        case 0: (origin, limit) = (0, topLevel.last?.end ?? 0)
        case 1:
            guard let idat = idat else { return nil }
            (origin, limit) = (idat.payload.lowerBound, idat.end)
        default: return nil
        }
        let start = origin.addingReportingOverflow(l.baseOffset).partialValue.addingReportingOverflow(e.offset)
        guard !start.overflow, start.partialValue >= origin, e.length <= limit - start.partialValue else { return nil }
        return start.partialValue..<(start.partialValue + e.length)
    }

    /// `tiff:Orientation` in the XMP item (a `mime` item of type application/rdf+xml, not
    /// compressed), nil when there is none. Informational in HEIF, like the EXIF.
    func xmpOrientation(_ b: [UInt8]) -> XMPOrientation? {
        for (id, item) in items.sorted(by: { $0.key < $1.key })
        where item.type == "mime" && item.contentType == "application/rdf+xml" && item.contentEncoding.isEmpty {
            if let range = dataRange(of: id), let found = XMPOrientation.find(in: b, range: range) { return found }
        }
        return nil
    }

    /// The Exif item's TIFF structure, absolute slots: its data starts with a 4-byte offset to the
    /// TIFF header. The Exif item that describes the primary (`cdsc`) when one does, else the
    /// first. Nil when there is none or it cannot be read (it is informational in HEIF).
    func exif(_ b: [UInt8]) -> TIFFStructure? {
        let candidates = items.filter { $0.value.type == "Exif" }.keys.sorted()
        let describing = candidates.first { id in
            references.contains { $0.type == "cdsc" && $0.from == id && $0.to.contains(primaryItem) }
        }
        guard let id = describing ?? candidates.first, let range = dataRange(of: id),
            let skip = Bytes.u32(b, range.lowerBound, bigEndian: true), skip <= range.count - 4
        else { return nil }
        return try? TIFFStructure.parse(b, base: range.lowerBound + 4 + skip, end: range.upperBound)
    }
}
