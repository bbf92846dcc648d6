import ArgumentParser
import DocOrient
import DocOrientCommandLine
import Foundation

@main
struct DocOrientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docorient",
        abstract: "Put photographed documents the right way up.",
        discussion: """
            Phone photos of documents lying flat carry an EXIF orientation tag from how the phone was \
            held a moment earlier, so the tag is often wrong. docorient reads the text to decide, then \
            rewrites the tag (lossless, instant) or bakes the rotation into the pixels (lossless JPEG).

            Examples:
              docorient fix scan.jpg
              docorient fix --dry-run --json receipts/*.jpg
              docorient inspect scan.jpg
              docorient tag 6 scan.jpg
              docorient bake --output fixed/ *.jpg
              docorient serve --port 8080

            Exit codes: 0 every file handled, 1 some file failed, 64 usage error.
            """,
        version: docorientVersion,
        subcommands: [
            FixCommand.self, ReportCommand.self, UndoCommand.self, InspectCommand.self, TagCommand.self,
            BakeCommand.self,
            ServeCommand.self, ReviewCommand.self, DecideCommand.self,
        ]
    )
}

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show format, size and every orientation value found in each file.",
        discussion: """
            Reads EXIF IFD0 and IFD1 (thumbnail), XMP tiff:Orientation and the pixel size from the \
            file's headers; never decodes the image. For HEIF (HEIC, AVIF) it shows the primary \
            image's irot (anticlockwise quarter turns) and imir (mirror) properties, the EXIF \
            orientation inside (informational) and how a HEIF viewer displays the image.

            Examples:
              docorient inspect scan.jpg
              docorient inspect --json Corpus/samples/*.jpg | jq .exif_orientation
            """)

    @Flag(help: "Print one JSON object per file per line.")
    var json = false

    @Argument(help: "Image files (JPEG, PNG, TIFF, HEIF).")
    var paths: [String]

    func run() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var failed = 0
        for path in paths {
            var record = InspectRecord(path: path, metadata: nil, error: nil)
            do {
                record.metadata = try ImageMetadata.read(FileIO.read(path))
            } catch let error as DocOrientError {
                record.error = error
                failed += 1
            }
            if json {
                print(String(decoding: try encoder.encode(record), as: UTF8.self))
            } else if record.error != nil {
                printError(record.humanLine)
            } else {
                print(record.humanLine)
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }
}

struct TagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Set the orientation tag of each file, leaving the pixels alone.",
        discussion: """
            Rewrites EXIF IFD0 and IFD1 orientation and XMP tiff:Orientation in place: every other byte \
            stays identical. A JPEG without EXIF gets a minimal EXIF block; a PNG gets an eXIf chunk. \
            A HEIF file (HEIC, AVIF) gets its primary image's irot/imir properties set, so that HEIF \
            viewers display it as ORIENTATION, and its EXIF orientation set to 1; its coded image \
            data is not touched. Files are replaced atomically (temporary file, fsync, rename).

            ORIENTATION is the EXIF value: 1 upright, 2 mirrored, 3 rotate 180, 4 mirrored vertically, \
            5 transpose, 6 rotate 90 clockwise, 7 transverse, 8 rotate 90 counter-clockwise.

            Examples:
              docorient tag 6 receipt.jpg
              docorient tag 1 --output upright/ *.jpg
            """)

    @Argument(help: "The EXIF orientation to write, 1-8.")
    var orientation: Orientation

    @OptionGroup var write: WriteOptions

    @Argument(help: "Image files (JPEG, PNG, TIFF, HEIF).")
    var paths: [String]

    func run() throws {
        let target = orientation
        try forEachFile(paths, command: "docorient") { path in
            let outcome = try FileActions.tag(path, to: target, destination: write.destination)
            print("\(path): \(outcome.wrote ? "orientation set to \(target)" : "already \(target), unchanged")")
        }
    }
}

struct BakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bake",
        abstract: "Trust each file's current tag and apply it to the pixels, losslessly.",
        discussion: """
            Like `jhead -autorot` or `exiftran -ai`, but it also sets XMP and the thumbnail's \
            orientation to 1, rotates the EXIF thumbnail, swaps PixelXDimension/PixelYDimension and \
            keeps every other marker. When the image size is not a multiple of the JPEG block size on \
            an edge the rotation moves, the pixels are left alone and the tag is rewritten instead \
            (said on stderr); --trim drops those partial edge blocks instead. HEIF files are refused: \
            turning their pixels means re-encoding them; use `docorient tag` instead.

            Examples:
              docorient bake photo.jpg
              docorient bake --trim --output baked/ *.jpg
            """)

    @Flag(help: "Drop partial edge blocks when a perfect lossless transform is impossible.")
    var trim = false

    @Option(help: ArgumentHelp("Refuse images with more pixels than this (decompression bombs).", valueName: "N"))
    var maxPixels = Bake.defaultMaxPixels

    @OptionGroup var write: WriteOptions

    @Argument(help: "JPEG, PNG and TIFF files.")
    var paths: [String]

    func run() throws {
        try forEachFile(paths, command: "docorient") { path in
            let outcome = try FileActions.bake(path, trim: trim, maxPixels: maxPixels, destination: write.destination)
            switch outcome.bake {
            case .baked(let o)?: print("\(path): baked \(o), orientation now 1")
            case .tagRewrittenInstead(let o, let reason)?:
                print("\(path): tag rewritten to \(o) instead of baking")
                printError("docorient: \(path): not baked: \(reason); pass --trim to bake anyway")
            case .unchanged?, nil: print("\(path): already upright, unchanged")
            }
        }
    }
}
