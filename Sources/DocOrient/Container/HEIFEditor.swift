/// Sets the displayed orientation of a HEIF file's primary image by rewriting its `irot` and
/// `imir` properties, keeping every coded byte.
///
/// What changes: when the primary already has transformative properties of its own that can
/// express the target, their bytes (one each) are edited in place and nothing moves. Otherwise
/// its `irot`/`imir` associations are replaced by new ones (new property boxes appended to
/// `ipco`, the primary's `ipma` entry rewritten), `iprp` and `meta` grow or shrink, and every
/// `iloc` offset that points past the change (construction method 0, base offsets and extents) is
/// moved by the same amount; `idat`-relative offsets keep their values. The thumbnails and
/// auxiliary images (alpha, depth, gain map) that displayed turned as the primary did turn with
/// it (`HEIFStructure.coOrientedItems`: libheif applies an alpha image's own irot/imir); every
/// other item (grid tiles above all) keeps its associations. The Exif item's orientation, if any,
/// becomes 1 (a 2-byte edit), and so does the XMP item's one-digit `tiff:Orientation`, so that
/// no viewer turns the image twice.
///
/// Anything outside that (several `ipma` boxes, a movie box whose offsets would move, data said to
/// lie inside `iprp`, fields too small for the moved values) is refused with an error naming it,
/// and nothing is changed. Items whose data is in other files have no offsets here to move.
enum HEIFEditor {
    /// The properties that put `target` on screen: `irot` (anticlockwise quarter turns) applied
    /// first, then `imir` mode 1 (left-right) when the target is mirrored; nil for what is not needed.
    static func properties(for target: Orientation) -> (rotation: Int?, mirrorAxis: Int?) {
        // rotation followed by a left-right mirror = target, so rotation = target followed by that mirror.
        let rotation = target.isMirrored ? target.followed(by: .flipHorizontal) : target
        let turns = (4 - rotation.quarterTurns) % 4
        return (turns == 0 ? nil : turns, target.isMirrored ? 1 : nil)
    }

    /// Returns the file with its primary image displayed as `target` and its Exif orientation 1.
    static func setting(_ target: Orientation, in bytes: [UInt8]) throws -> [UInt8] {
        let s = try HEIFStructure.parse(bytes)
        let items = s.coOrientedItems(bytes)
        var out =
            try inPlace(target, in: bytes, structure: s, items: items)
            ?? rebuilt(target, in: bytes, structure: s, items: items)
        let edited = try HEIFStructure.parse(out)
        if let exif = edited.exif(out) {
            exif.orientation?.write(&out, 1)
            exif.ifd1Orientation?.write(&out, 1)
        }
        // One digit becomes "1" in place, so nothing moves; longer values (none of them a
        // usable orientation) are left as they are.
        if let xmp = edited.xmpOrientation(out), xmp.digits.count == 1 {
            out[xmp.digits.lowerBound] = UInt8(ascii: "1")
        }
        for item in items where edited.displayedOrientation(of: item, out) != target {
            throw DocOrientError(
                .library, "item \(item) of the rewritten HEIF file does not display as \(target); nothing was written")
        }
        return out
    }

    /// The primary's transformative properties edited in place, when their kinds and order can
    /// express `target`, every co-oriented item uses exactly those boxes and no other item uses
    /// them; nil when a rebuild is needed.
    private static func inPlace(
        _ target: Orientation, in b: [UInt8], structure s: HEIFStructure, items: [Int]
    ) -> [UInt8]? {
        let isTransform = { (p: (association: HEIFStructure.Association, box: ISOBox)) in
            ["irot", "imir"].contains(p.box.type)
        }
        let transforms = s.primaryProperties.filter(isTransform)
        let indices = transforms.map(\.association.index)
        // An empty box has no byte to edit (readers ignore it): the rebuild replaces it.
        guard Set(indices).count == indices.count, transforms.allSatisfy({ $0.box.payload.count >= 1 }) else {
            return nil
        }
        for item in items where s.properties(of: item).filter(isTransform).map(\.association.index) != indices {
            return nil
        }
        for e in s.associations.entries where !items.contains(e.item) {
            if e.associations.contains(where: { indices.contains($0.index) }) { return nil }
        }
        var out = b
        switch transforms.map(\.box.type) {
        case []:
            guard target == .identity else { return nil }
        case ["irot"]:
            guard !target.isMirrored else { return nil }
            setRotation(&out, transforms[0].box, (4 - target.quarterTurns) % 4)
        case ["imir"]:
            guard target == .flipHorizontal || target == .flipVertical else { return nil }
            setMirror(&out, transforms[0].box, target == .flipHorizontal ? 1 : 0)
        case ["irot", "imir"]:
            guard target.isMirrored else { return nil }
            let rotation = target.followed(by: .flipHorizontal)
            setRotation(&out, transforms[0].box, (4 - rotation.quarterTurns) % 4)
            setMirror(&out, transforms[1].box, 1)
        case ["imir", "irot"]:
            guard target.isMirrored else { return nil }
            // A left-right mirror first, then the rotation: rotation = mirror followed by target.
            let rotation = Orientation.flipHorizontal.followed(by: target)
            setMirror(&out, transforms[0].box, 1)
            setRotation(&out, transforms[1].box, (4 - rotation.quarterTurns) % 4)
        default:
            return nil
        }
        return out
    }

    private static func setRotation(_ b: inout [UInt8], _ box: ISOBox, _ turns: Int) {
        let at = box.payload.lowerBound
        b[at] = (b[at] & 0xFC) | UInt8(turns)
    }

    private static func setMirror(_ b: inout [UInt8], _ box: ISOBox, _ axis: Int) {
        let at = box.payload.lowerBound
        b[at] = (b[at] & 0xFE) | UInt8(axis)
    }

    /// The top-level boxes that may follow a grown or shrunk `meta`: none of them holds an offset.
    static let movableTopLevel: Set<String> = ["ftyp", "meta", "mdat", "free", "skip", "uuid", "wide", "pdin"]

    /// New `ipco` and `ipma`, hence new `iprp` and `meta` sizes, and every moved offset updated.
    private static func rebuilt(
        _ target: Orientation, in b: [UInt8], structure s: HEIFStructure, items: [Int]
    ) throws -> [UInt8] {
        guard s.associations.entries.contains(where: { $0.item == s.primaryItem }) else {
            throw DocOrientError(.malformed, "the primary item \(s.primaryItem) has no properties ('ipma' entry)")
        }
        let iprpChildren = try ISOBox.children(b, in: s.iprp.payload, parent: "iprp")
        guard iprpChildren.filter({ $0.type == "ipma" }).count == 1 else {
            throw DocOrientError(.invalidRequest, "the file has several 'ipma' boxes; docorient does not rewrite those")
        }
        let (ipcoBody, associations) = try rewrittenProperties(target, in: b, structure: s, items: items)
        let iprp = rebuiltIprp(ipcoBody: ipcoBody, associations: associations, children: iprpChildren, in: b, s)
        let delta = iprp.count - s.iprp.size
        let newMetaSize = try resizedMeta(by: delta, s)
        let patches = try movedOffsets(by: delta, s)
        let changeEnd = s.iprp.end
        var out = Array(b[..<s.iprp.start]) + iprp + Array(b[changeEnd...])
        // meta's size (it starts before iprp, so it has not moved).
        if s.meta.usesLargeSize {
            Bytes.put32(&out, s.meta.start + 8, newMetaSize >> 32, bigEndian: true)
            Bytes.put32(&out, s.meta.start + 12, newMetaSize & 0xFFFF_FFFF, bigEndian: true)
        } else {
            Bytes.put32(&out, s.meta.start, newMetaSize, bigEndian: true)
        }
        for p in patches {
            let at = p.field.at >= changeEnd ? p.field.at + delta : p.field.at
            if p.field.size == 8 {
                Bytes.put32(&out, at, p.value >> 32, bigEndian: true)
                Bytes.put32(&out, at + 4, p.value & 0xFFFF_FFFF, bigEndian: true)
            } else {
                Bytes.put32(&out, at, p.value, bigEndian: true)
            }
        }
        return out
    }

    /// The new body of `ipco` and the new associations: the co-oriented `items`' associations
    /// without their irot/imir, and the ones that display `target` where the first old one was.
    /// A property box of the right kind that no item uses any more (the primary's old one, or one
    /// an earlier rewrite left) is reused; otherwise a new one is appended to `ipco`.
    private static func rewrittenProperties(
        _ target: Orientation, in b: [UInt8], structure s: HEIFStructure, items: [Int]
    ) throws -> (ipcoBody: [UInt8], associations: HEIFStructure.Associations) {
        let entryIndices = s.associations.entries.indices.filter { items.contains(s.associations.entries[$0].item) }
        var associations = s.associations
        let isTransform = { (a: HEIFStructure.Association) in
            a.index > 0 && ["irot", "imir"].contains(s.properties[a.index - 1].type)
        }
        var used: Set<Int> = []
        for (i, e) in associations.entries.enumerated() {
            used.formUnion(e.associations.filter { !entryIndices.contains(i) || !isTransform($0) }.map(\.index))
        }
        var ipcoBody = Array(b[s.ipco.payload])
        var newAssociations: [HEIFStructure.Association] = []
        var nextIndex = s.properties.count + 1
        func place(_ type: String, _ value: UInt8, mask: UInt8) {
            if let i = s.properties.indices.first(where: {
                s.properties[$0].type == type && s.properties[$0].payload.count == 1 && !used.contains($0 + 1)
            }) {
                let at = s.properties[i].payload.lowerBound - s.ipco.payload.lowerBound
                ipcoBody[at] = (ipcoBody[at] & ~mask) | value
                used.insert(i + 1)
                newAssociations.append(.init(essential: true, index: i + 1))
            } else {
                ipcoBody += ISOBox.header(type: type, size: 9, large: false) + [value]
                newAssociations.append(.init(essential: true, index: nextIndex))
                nextIndex += 1
            }
        }
        let wanted = properties(for: target)
        if let turns = wanted.rotation { place("irot", UInt8(turns), mask: 0x03) }
        if let axis = wanted.mirrorAxis { place("imir", UInt8(axis), mask: 0x01) }
        guard nextIndex - 1 <= 0x7FFF else {
            throw DocOrientError(
                .invalidRequest, "'ipco' would hold \(nextIndex - 1) properties, more than 'ipma' can index")
        }
        for entryIndex in entryIndices {
            let old = associations.entries[entryIndex].associations
            let position = old.firstIndex(where: isTransform) ?? old.count
            var list = old.filter { !isTransform($0) }
            list.insert(contentsOf: newAssociations, at: min(position, list.count))
            guard list.count <= 255 else {
                throw DocOrientError(
                    .invalidRequest,
                    "item \(associations.entries[entryIndex].item) would have \(list.count) properties, more than "
                        + "'ipma' can list"
                )
            }
            associations.entries[entryIndex].associations = list
        }
        let wide = associations.entries.contains { $0.associations.contains { $0.index > 0x7F } }
        if wide { associations.flags |= 1 }
        return (ipcoBody, associations)
    }

    /// The new `iprp` box: its `children` as they were, but `ipco` with `ipcoBody` and `ipma`
    /// serialised from `associations`, each keeping its header form.
    private static func rebuiltIprp(
        ipcoBody: [UInt8], associations: HEIFStructure.Associations, children: [ISOBox], in b: [UInt8],
        _ s: HEIFStructure
    ) -> [UInt8] {
        let ipco =
            ISOBox.header(type: "ipco", size: s.ipco.headerSize + ipcoBody.count, large: s.ipco.usesLargeSize)
            + ipcoBody
        let ipma = serialize(associations, header: s.ipma, in: b)
        var iprpBody: [UInt8] = []
        for child in children {
            switch child.type {
            case "ipco" where child.start == s.ipco.start: iprpBody += ipco
            case "ipma": iprpBody += ipma
            default: iprpBody += b[child.start..<child.end]
            }
        }
        return ISOBox.header(type: "iprp", size: s.iprp.headerSize + iprpBody.count, large: s.iprp.usesLargeSize)
            + iprpBody
    }

    /// The size `meta` has once `iprp`, inside it, grows by `delta` bytes; refused when a top-level
    /// box that holds offsets would move, or the size outgrows its field.
    private static func resizedMeta(by delta: Int, _ s: HEIFStructure) throws -> Int {
        guard s.meta.start < s.iprp.start, !s.meta.headerIsUUID else {
            throw DocOrientError(.malformed, "the 'iprp' box is not inside 'meta'")
        }
        if delta != 0 {
            if let other = s.topLevel.first(where: { !movableTopLevel.contains($0.type) }) {
                throw DocOrientError(
                    .invalidRequest,
                    "the file holds a top-level '\(other.type)' box whose offsets docorient does not update; adding "
                        + "the orientation would move them"
                )
            }
        }
        let newMetaSize = s.meta.size + delta
        guard s.meta.usesLargeSize || newMetaSize <= 0xFFFF_FFFF else {
            throw DocOrientError(.limitExceeded, "the 'meta' box would outgrow its 32-bit size")
        }
        return newMetaSize
    }

    /// Every `iloc` number that points past the end of `iprp`, with its value moved by `delta`;
    /// refused when data is said to lie inside `iprp`, or a field is too small for its new value.
    private static func movedOffsets(
        by delta: Int, _ s: HEIFStructure
    ) throws -> [(field: HEIFStructure.Field, value: Int)] {
        let changeEnd = s.iprp.end
        var patches: [(field: HEIFStructure.Field, value: Int)] = []
        for l in s.locations where l.constructionMethod == 0 && l.dataReferenceIndex == 0 && delta != 0 {
            let insideChange = { (offset: Int) in offset >= s.iprp.start && offset < changeEnd }
            if l.baseOffset >= changeEnd {
                patches.append((l.baseOffsetField, l.baseOffset + delta))
                continue
            }
            if insideChange(l.baseOffset) && l.baseOffsetField.size > 0 {
                throw DocOrientError(
                    .invalidRequest,
                    "item \(l.item)'s data is said to lie inside the 'iprp' box; docorient does not rewrite such a file"
                )
            }
            for e in l.extents {
                let at = l.baseOffset + e.offset
                if insideChange(at) {
                    throw DocOrientError(
                        .invalidRequest,
                        "item \(l.item)'s data is said to lie inside the 'iprp' box; docorient does not rewrite such "
                            + "a file"
                    )
                }
                if at >= changeEnd { patches.append((e.offsetField, e.offset + delta)) }
            }
        }
        for p in patches {
            guard p.field.size > 0, p.value >= 0, p.field.size == 8 || p.value <= 0xFFFF_FFFF else {
                throw DocOrientError(
                    .invalidRequest,
                    "an 'iloc' offset field is too small for the moved value \(p.value); nothing was changed")
            }
        }
        return patches
    }

    /// The `ipma` box for `a`, with the original's header form (32- or 64-bit size).
    private static func serialize(_ a: HEIFStructure.Associations, header old: ISOBox, in b: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [
            UInt8(a.version), UInt8((a.flags >> 16) & 0xFF), UInt8((a.flags >> 8) & 0xFF), UInt8(a.flags & 0xFF),
        ]
        body += Bytes.be32(a.entries.count)
        for e in a.entries {
            body += a.version < 1 ? Bytes.be16(e.item) : Bytes.be32(e.item)
            body.append(UInt8(e.associations.count))
            for x in e.associations {
                if a.flags & 1 != 0 {
                    body += Bytes.be16((x.essential ? 0x8000 : 0) | x.index)
                } else {
                    body.append(UInt8((x.essential ? 0x80 : 0) | x.index))
                }
            }
        }
        return ISOBox.header(type: "ipma", size: old.headerSize + body.count, large: old.usesLargeSize) + body
    }
}

extension ISOBox {
    /// Whether the header carries a 16-byte uuid (then it is not a box docorient resizes).
    var headerIsUUID: Bool { type == "uuid" }
}
