import DocOrientTestSupport
import Foundation

@testable import DocOrient

/// Real files for tests: JPEGs encoded by TurboJPEG, with EXIF blocks laid out like a camera's
/// (maker note, Exif IFD, IFD1 thumbnail), XMP, an ICC-like APP2 and a comment.
enum Fixtures {
    static let repoRoot = Repository.root
    static let samples = Repository.samples

    /// A test image with structure in every direction, so that any wrong transform shows.
    static func pixels(width: Int, height: Int, channels: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let v =
                        (x * 7 + y * 3 + c * 50 + (x * y) % 31 + (x < width / 3 ? 60 : 0) + (y < height / 4 ? 90 : 0))
                        % 256
                    p[(y * width + x) * channels + c] = UInt8(v)
                }
            }
        }
        return p
    }

    static func plainJPEG(width: Int, height: Int, subsampling: TurboJPEG.Subsampling = .s420) throws -> [UInt8] {
        let channels = subsampling == .gray ? 1 : 3
        return try TurboJPEG.encode(
            pixels(width: width, height: height, channels: channels), width: width, height: height,
            subsampling: subsampling)
    }

    /// A camera-like JPEG: APP1 EXIF (IFD0 Make + Orientation, Exif IFD with PixelX/YDimension and
    /// a maker note holding absolute offsets, IFD1 with orientation and a thumbnail), APP1 XMP
    /// with tiff:Orientation, an APP2 ICC-like blob and a COM comment.
    static func cameraJPEG(
        width: Int, height: Int, orientation: Int, subsampling: TurboJPEG.Subsampling = .s420, bigEndian: Bool = true,
        xmp: Bool = true, thumbnail: Bool = true
    ) throws -> [UInt8] {
        let plain = try plainJPEG(width: width, height: height, subsampling: subsampling)
        let thumb = thumbnail ? try plainJPEG(width: 160, height: 120) : []
        let tiff = exifTIFF(
            width: width, height: height, orientation: orientation, thumbnail: thumb, bigEndian: bigEndian)
        var segments: [UInt8] = try JPEGEditor.app1(JPEGStructure.exifHeader + tiff)
        if xmp {
            let packet = """
                <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
                <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" \
                tiff:Orientation="\(orientation)" tiff:Make="Canon"/></rdf:RDF></x:xmpmeta>\
                \(String(repeating: " ", count: 200))<?xpacket end="w"?>
                """
            segments += try JPEGEditor.app1(JPEGStructure.xmpHeader + Array(packet.utf8))
        }
        let icc = Array("ICC_PROFILE\0".utf8) + [1, 1] + (0..<300).map { UInt8($0 % 251) }
        segments += [0xFF, 0xE2] + Bytes.be16(icc.count + 2) + icc
        let comment = Array("docorient test comment".utf8)
        segments += [0xFF, 0xFE] + Bytes.be16(comment.count + 2) + comment
        // After SOI and TurboJPEG's JFIF APP0.
        let jpeg = try JPEGStructure.parse(plain)
        let at = jpeg.insertionOffset(plain)
        return Array(plain[..<at]) + segments + Array(plain[at...])
    }

    /// A TIFF structure laid out the way cameras write EXIF.
    static func exifTIFF(width: Int, height: Int, orientation: Int, thumbnail: [UInt8], bigEndian: Bool) -> [UInt8] {
        var b = [UInt8](repeating: 0, count: 8)
        b[0...3] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        Bytes.put32(&b, 4, 8, bigEndian: bigEndian)
        typealias Entry = (tag: Int, type: Int, count: Int, value: Int)
        func ifdSize(_ n: Int) -> Int { 2 + n * 12 + 4 }
        let ifd0Count = 3, exifCount = 3, ifd1Count = thumbnail.isEmpty ? 1 : 4
        let ifd0At = 8
        let exifAt = ifd0At + ifdSize(ifd0Count)
        let ifd1At = exifAt + ifdSize(exifCount)
        let makeAt = ifd1At + ifdSize(ifd1Count)
        let makerAt = makeAt + 6
        let makerLength = 64
        let thumbAt = makerAt + makerLength
        func ifd(_ entries: [Entry], next: Int) -> [UInt8] {
            var d = [UInt8](repeating: 0, count: ifdSize(entries.count))
            Bytes.put16(&d, 0, entries.count, bigEndian: bigEndian)
            for (i, e) in entries.enumerated() {
                let at = 2 + i * 12
                Bytes.put16(&d, at, e.tag, bigEndian: bigEndian)
                Bytes.put16(&d, at + 2, e.type, bigEndian: bigEndian)
                Bytes.put32(&d, at + 4, e.count, bigEndian: bigEndian)
                if e.type == 3, e.count == 1 {
                    Bytes.put16(&d, at + 8, e.value, bigEndian: bigEndian)
                } else {
                    Bytes.put32(&d, at + 8, e.value, bigEndian: bigEndian)
                }
            }
            Bytes.put32(&d, d.count - 4, next, bigEndian: bigEndian)
            return d
        }
        b += ifd([(0x010F, 2, 6, makeAt), (0x0112, 3, 1, orientation), (0x8769, 4, 1, exifAt)], next: ifd1At)
        b += ifd([(0x927C, 7, makerLength, makerAt), (0xA002, 3, 1, width), (0xA003, 3, 1, height)], next: 0)
        var ifd1: [Entry] = [(0x0112, 3, 1, orientation)]
        if !thumbnail.isEmpty {
            ifd1 = [
                (0x0103, 3, 1, 6), (0x0112, 3, 1, orientation), (0x0201, 4, 1, thumbAt),
                (0x0202, 4, 1, thumbnail.count),
            ]
        }
        b += ifd(ifd1, next: 0)
        b += Array("Canon\0".utf8)
        // A maker note whose private directory points at absolute offsets inside the block,
        // as many cameras' do: moving it would break it.
        var maker = [UInt8](repeating: 0xA5, count: makerLength)
        Bytes.put16(&maker, 0, 1, bigEndian: bigEndian)
        Bytes.put32(&maker, 2, makerAt + 32, bigEndian: bigEndian)
        b += maker
        b += thumbnail
        return b
    }

    /// Runs a command and returns its standard output; throws when it exits non-zero.
    @discardableResult
    static func run(
        _ arguments: [String], allowFailure: Bool = false
    ) throws -> (out: String, err: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        // stderr goes to a file: waiting on one pipe while the child fills the other would hang.
        let out = Pipe()
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("docorient-err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let err = try FileHandle(forWritingTo: errURL)
        defer { try? FileManager.default.removeItem(at: errURL) }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try err.close()
        let e = (try? Data(contentsOf: errURL)) ?? Data()
        let result = (String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self), process.terminationStatus)
        if !allowFailure, process.terminationStatus != 0 {
            throw DocOrientError(.io, "\(arguments.joined(separator: " ")) failed: \(result.1)")
        }
        return result
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docorient-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ bytes: [UInt8], _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// What exiftool reads for a tag (`-n`, numeric), or nil when absent.
    static func exiftool(_ tag: String, _ path: String) throws -> Int? {
        let out = try run(["exiftool", "-n", "-s3", "-\(tag)", path]).out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        return Int(out)
    }
}
