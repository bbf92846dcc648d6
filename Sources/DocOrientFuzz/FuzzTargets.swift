// libFuzzer targets for every parser docorient owns or feeds. Built two ways:
//   Scripts/fuzz.sh TARGET SECONDS   (-sanitize=fuzzer,address -DFUZZING: libFuzzer's main)
//   swift run docorient-fuzz TARGET FILE...   (replays files through the same code: regressions)
@testable import DocOrient

#if canImport(Glibc)
    import Glibc
#endif

enum FuzzTarget: String, CaseIterable {
    case jpeg, tiff, png, xmp, turbojpeg

    /// Runs one input. Any outcome is fine except a crash, a hang or a leak.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .jpeg:
            // Segment walk, EXIF/TIFF IFDs, XMP, then the in-place tag rewrite and its re-parse.
            guard let parsed = try? JPEGStructure.parse(bytes) else { return }
            _ = try? ParsedImage.jpeg(parsed).metadata(bytes)
            for o in [Orientation.rotate90, .identity] {
                if let out = try? TagRewrite.setting(o, in: bytes) { _ = try? ImageMetadata.read(out) }
            }
        case .tiff:
            guard (try? TIFFStructure.parse(bytes, base: 0, end: bytes.count)) != nil else { return }
            if let out = try? TIFFEditor.settingOrientation(3, in: bytes, pixelDimensions: (7, 9)) {
                _ = try? TIFFStructure.parse(out, base: 0, end: out.count)
            }
            _ = try? JPEGEditor.replacingThumbnail(in: bytes) { $0 }
        case .png:
            guard let png = try? PNGStructure.parse(bytes) else { return }
            _ = try? ParsedImage.png(png).metadata(bytes)
            _ = try? TagRewrite.setting(.rotate180, in: bytes)
        case .xmp:
            if let found = XMPOrientation.find(in: bytes, range: 0..<bytes.count) {
                _ = found.read(bytes)
                _ = JPEGEditor.xmpEdit(found, value: 1, in: bytes)
            }
        case .turbojpeg:
            // The TurboJPEG paths as docorient calls them: header, scaled grey decode under a
            // small pixel limit, and the lossless transform (plus the bake around it).
            _ = try? TurboJPEG.header(bytes)
            _ = try? TurboJPEG.decodeGray(bytes, minimumLongSide: 64, maxPixels: 4_000_000)
            _ = try? Bake.apply(.rotate90, to: bytes, trim: true, maxPixels: 4_000_000)
        }
    }

    static var current: FuzzTarget {
        let name = getenv("DOCORIENT_FUZZ_TARGET").map { String(cString: $0) } ?? "jpeg"
        return FuzzTarget(rawValue: name) ?? .jpeg
    }
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        FuzzTarget.current.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    // SwiftPM links an executable's entry point as <module>_main; hand control to libFuzzer.
    @_cdecl("DocOrientFuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var vector = argv
        return runDriver(&count, &vector) { data, size in fuzzOneInput(data, size) }
    }
#else
    @main
    struct Replay {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                print("usage: docorient-fuzz {\(FuzzTarget.allCases.map(\.rawValue).joined(separator: ","))} FILE...")
                exit(64)
            }
            for path in arguments.dropFirst() {
                target.run(try FileIO.read(path))
                print("ok \(path)")
            }
        }
    }
#endif
