import Foundation

/// Multi-page TIFFs as scanners and fax gateways write them, made from the corpus' document
/// photos by ImageMagick (`convert`), libtiff's `tiffcp` and Pillow, and read back IFD by IFD
/// with libtiff's `tiffdump`: independent writers and an independent reader for the TIFF tests.
public enum ScannedTIFF {
    /// How a page's pixels are stored.
    public enum Compression: Sendable {
        /// 8-bit grey, LZW.
        case lzw
        /// RGB, JPEG-in-TIFF (compression 7).
        case jpeg
        /// Bilevel, CCITT Group 4, binarised with a local threshold as a scanner's fax mode does.
        case g4
    }

    /// ImageMagick's names of the eight EXIF orientations, for `-orient`.
    static let orientNames = [
        "TopLeft", "TopRight", "BottomRight", "BottomLeft", "LeftTop", "RightTop", "RightBottom", "LeftBottom",
    ]

    /// A one-page TIFF of the corpus sample `sample` (its stored pixels, long side `side`, its
    /// EXIF dropped) with Orientation `tag` (ImageMagick writes one on every page).
    public static func page(
        _ sample: String, _ compression: Compression, tag: Int, side: Int = 1400, in directory: URL
    ) throws -> String {
        let source = Repository.samples.appendingPathComponent(sample).path
        let out = directory.appendingPathComponent("\(UUID().uuidString).tif").path
        var arguments = ["convert", source, "-strip", "-resize", "\(side)x\(side)"]
        switch compression {
        case .lzw: arguments += ["-colorspace", "Gray", "-compress", "LZW"]
        case .jpeg: arguments += ["-compress", "JPEG", "-quality", "85"]
        case .g4: arguments += ["-colorspace", "Gray", "-lat", "41x41-6%", "-monochrome", "-compress", "Group4"]
        }
        try run(arguments + ["-orient", orientNames[tag - 1], out])
        return out
    }

    /// A bilevel G4 TIFF of the samples, one page each, written by Pillow, which writes no
    /// Orientation entry (as many fax gateways): `side` pixels on the long side.
    public static func untaggedFax(_ samples: [String], side: Int = 1700, to path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        var pbms: [String] = []
        for sample in samples {
            let pbm = directory.appendingPathComponent("\(UUID().uuidString).pbm").path
            try run([
                "convert", Repository.samples.appendingPathComponent(sample).path, "-strip", "-colorspace", "Gray",
                "-resize", "\(side)x\(side)", "-lat", "41x41-6%", "-monochrome", pbm,
            ])
            pbms.append(pbm)
        }
        defer { for pbm in pbms { try? FileManager.default.removeItem(atPath: pbm) } }
        let script = """
            import sys
            from PIL import Image
            pages = [Image.open(p) for p in sys.argv[2:]]
            pages[0].save(sys.argv[1], save_all=True, append_images=pages[1:], compression="group4", dpi=(200, 200))
            """
        try run(["python3", "-c", script, path] + pbms)
    }

    /// `pages` (TIFF files) joined into one TIFF at `path` by tiffcp, with its `options`
    /// (`-B` big-endian, `-t` tiled, ...).
    public static func join(_ pages: [String], options: [String] = [], to path: String) throws {
        try run(["tiffcp"] + options + pages + [path])
    }

    /// Each IFD of the TIFF at `path` as tiffdump prints its entries ("Orientation (274) SHORT (3)
    /// 1<8>", one line each), in chain order; `offsets` holds where tiffdump found each IFD.
    public static func directories(_ path: String) throws -> (entries: [[String]], offsets: [Int]) {
        var entries: [[String]] = []
        var offsets: [Int] = []
        for line in try run(["tiffdump", path]).split(separator: "\n").map(String.init) {
            if line.hasPrefix("Directory ") {
                let words = line.split(separator: " ")
                offsets.append(words.count > 3 ? Int(words[3]) ?? -1 : -1)
                entries.append([])
            } else if !entries.isEmpty, !line.isEmpty {
                entries[entries.count - 1].append(line)
            }
        }
        return (entries, offsets)
    }

    /// The Orientation value tiffdump reads in each IFD, nil where it has none.
    public static func orientations(_ path: String) throws -> [Int?] {
        try directories(path).entries.map { lines in
            lines.first { $0.hasPrefix("Orientation (274)") }.flatMap { line in
                line.split(separator: "<").last.flatMap { Int($0.dropLast()) }
            }
        }
    }

    /// Each IFD's entries but its Orientation: what must not change when a page is turned by its tag.
    public static func entriesButOrientation(_ path: String) throws -> [[String]] {
        try directories(path).entries.map { $0.filter { !$0.hasPrefix("Orientation (274)") } }
    }

    /// The EXIF orientation that shows a corpus sample's stored pixels upright (its manifest).
    public static func upright(_ sample: String) throws -> Int {
        let manifest = try String(
            contentsOf: Repository.samples.appendingPathComponent("manifest.csv"), encoding: .utf8)
        for line in manifest.split(separator: "\n") where line.hasPrefix(sample + ",") {
            if let value = Int(line.split(separator: ",")[1]) { return value }
        }
        throw CocoaError(.fileReadUnknown)
    }

    /// A little-endian TIFF of `pages` 1x1 grey pages sharing one strip, each IFD pointing at
    /// the next, built byte by byte; `next` is the last IFD's next-IFD offset (0: none), so a
    /// test can make the chain loop or point past the end.
    public static func chain(pages: Int, next: Int = 0) -> [UInt8] {
        func le(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        let entries: [(tag: Int, type: Int, value: Int)] = [
            (256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 0), (277, 3, 1),
            (278, 3, 1), (279, 4, 1),
        ]
        let ifdSize = 2 + entries.count * 12 + 4
        let strip = 8 + pages * ifdSize
        var b: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le(8, 4)
        for page in 0..<pages {
            b += le(entries.count, 2)
            for e in entries {
                b += le(e.tag, 2) + le(e.type, 2) + le(1, 4)
                b += e.type == 3 ? le(e.value, 2) + [0, 0] : le(e.tag == 273 ? strip : e.value, 4)
            }
            b += le(page == pages - 1 ? next : 8 + (page + 1) * ifdSize, 4)
        }
        return b + [0x80]
    }

    /// Runs a command, returning its standard output; throws with its standard error when it fails.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let err = try FileHandle(forWritingTo: errURL)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try err.close()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            throw CocoaError(
                .executableLoad,
                userInfo: [NSLocalizedDescriptionKey: "\(arguments.joined(separator: " ")) failed: \(message)"])
        }
        return String(decoding: data, as: UTF8.self)
    }
}
