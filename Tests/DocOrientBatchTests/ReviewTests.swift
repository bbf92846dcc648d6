import DocOrient
import DocOrientBatch
import DocOrientBatchTestSupport
import DocOrientTestSupport
import Foundation
import Testing

/// The review on its own (no engine, no server): a batch's journal written by hand over copies of
/// committed samples, a person's turns, the names it refuses, the files that change under it.
struct ReviewTests {
    /// A folder holding the file `make` writes at `name`, and a journal recording it as a batch
    /// that changed nothing records it: with `pages`, as a file of pages, one undecidable page
    /// record a page, each shown as stored (1); with none, as a single image.
    static func madeBatch(_ name: String, pages: Int = 0, make: (String) throws -> Void) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent(name)
        try make(target.path)
        var entry = try JournalledBatch.entry(for: target, relative: name, verdict: "undecidable")
        if pages > 0 {
            let records = (1...pages).map {
                "{\"page\":\($0),\"verdict\":\"undecidable\",\"exif_orientation\":1,\"confidence\":0,"
                    + "\"action\":\"none\",\"reason\":\"too little text\"}"
            }
            entry.record = "{\"path\":\"\(target.path)\",\"pages\":[\(records.joined(separator: ","))]}"
            entry.exifOrientation = nil
        }
        try Journal(path: Journal.location(folder.path)).save([entry])
        return folder
    }

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    @Test func aTurnRewritesOnlyTheTagAndIsJournalledAsAPersonsDecisionThatUndoTakesBack() throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg", "0017_blank.jpg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("0000_receipt.jpg")
        let original = try Self.bytes(file)
        let review = try Review(folder: folder.path)
        let items = try review.items()
        #expect(items.map(\.file) == ["0000_receipt.jpg", "0017_blank.jpg"])
        #expect(items.allSatisfy { $0.attention == "undecidable" && $0.turnable })

        // Tagged 6 (shown turned right); a person turns it left: it shows as stored, 1.
        let turned = try review.turn("0000_receipt.jpg", .left, expecting: items[0].version)
        let now = try Self.bytes(file)
        #expect(try ImageMetadata.read(now).exifOrientation == 1)
        #expect(now.count == original.count)
        #expect(zip(now, original).filter { $0 != $1 }.count <= 2, "only the tag's value changed")
        #expect(turned.personOrientation == 1 && turned.decidedBy == .person && turned.attention == nil)

        // Turned twice more, still one journal row, still the person's.
        let again = try review.turn("0000_receipt.jpg", .halfTurn, expecting: turned.version)
        #expect(try ImageMetadata.read(Self.bytes(file)).exifOrientation == 3)
        #expect(again.personOrientation == 3)
        let report = try BatchReport(journals: [review.journal.path])
        #expect(report.labelledExamples.map(\.orientation) == [3])
        #expect(report.labelledExamples.first?.decidedBy == .person)
        #expect(report.summaryLine.hasSuffix("1 decided by a person"))
        #expect(BatchReport.group(of: report.entries[0]) == .decidedByPerson)

        // Keep on the blank page: the person's decision, nothing written.
        let blank = folder.appendingPathComponent("0017_blank.jpg")
        let blankBefore = try Self.bytes(blank)
        _ = try review.turn("0017_blank.jpg", .keep, expecting: items[1].version)
        #expect(try Self.bytes(blank) == blankBefore)

        // Undo gives the turned file its original bytes back.
        let entry = try #require(try review.journal.entries()[file.path])
        let (result, undone) = Undo.undo(entry, store: review.originals, dryRun: false)
        #expect(result.outcome == .restored, "\(result.reason ?? "")")
        #expect(try Self.bytes(file) == original)
        #expect(undone?.action == .undone)
    }

    @Test func aClickOnAPDFPageSetsItsRotateOnlyAndUndoGivesTheBytesBack() throws {
        let folder = try Self.madeBatch("scan.pdf", pages: 2) {
            try ScannedPDF.make(["0017_blank.jpg", "0018_photo.jpg"], to: $0)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("scan.pdf")
        let original = try Self.bytes(file)
        let before = try ScannedPDF.pages(file.path)
        #expect(before.map(\.rotate) == [nil, nil])
        let review = try Review(folder: folder.path)
        let items = try review.items()
        #expect(items.map(\.page) == [1, 2] && items.allSatisfy { $0.file == "scan.pdf" && $0.turnable })
        #expect(items.allSatisfy { $0.attention == "undecidable" && $0.pageCount == 2 })
        // The file has pages: a turn names one.
        let unnamed = #expect(throws: ReviewRefusal.self) {
            try review.turn("scan.pdf", .right, expecting: items[0].version)
        }
        #expect(unnamed?.reason == .notTurnable)
        #expect(try Self.bytes(file) == original)

        // Page 2, a landscape photo shown as stored; turned right, /Rotate 90 on page 2 only.
        let portrait = try ImageMetadata.read(review.preview("scan.pdf", page: 2, side: 120))
        #expect(portrait.width > portrait.height, "the thumbnail shows the page's image as the page shows it")
        let turned = try review.turn("scan.pdf", page: 2, .right, expecting: items[1].version)
        let after = try ScannedPDF.pages(file.path)
        #expect(after[1].rotate == 90)
        // (Compared as booleans: a failure would print every stream in base64.)
        let pageOneAsItWas = after[0] == before[0]
        let pageTwoStreamsAsTheyWere = after[1].streams == before[1].streams
        #expect(pageOneAsItWas, "page 1 keeps its /Rotate and its streams' bytes")
        #expect(pageTwoStreamsAsTheyWere, "page 2's content and image streams keep their bytes")
        #expect(turned.page == 2 && turned.personOrientation == 6 && turned.decidedBy == .person)
        #expect(turned.attention == nil)
        let shown = try ImageMetadata.read(review.preview("scan.pdf", page: 2, side: 120))
        #expect(shown.height > shown.width, "the thumbnail shows the page as it shows now")

        // Page 1 is still docorient's and still needs a look; the old version is refused.
        let now = try review.items()
        #expect(now.first { $0.page == 1 }?.attention == "undecidable")
        #expect(now.first { $0.page == 1 }?.personOrientation == nil)
        let stale = #expect(throws: ReviewRefusal.self) {
            try review.turn("scan.pdf", page: 1, .left, expecting: items[0].version)
        }
        #expect(stale?.reason == .changed)
        _ = try review.turn("scan.pdf", page: 1, .halfTurn, expecting: turned.version)
        #expect(try ScannedPDF.pages(file.path).map(\.rotate) == [180, 90])

        // Journalled page by page as a person's; the labels say which page.
        let entry = try #require(try review.journal.entries()[file.path])
        #expect(entry.decidedBy == .person && entry.personPages == [1: 3, 2: 6] && entry.personOrientation == nil)
        let report = try BatchReport(journals: [review.journal.path])
        #expect(report.labelledExamples.map(\.page) == [1, 2])
        #expect(report.labelledExamples.map(\.orientation) == [3, 6])

        // Undo gives the file its original bytes back.
        let (result, _) = Undo.undo(entry, store: review.originals, dryRun: false)
        #expect(result.outcome == .restored, "\(result.reason ?? "")")
        #expect(try Self.bytes(file) == original)
    }

    @Test func aClickOnAPageOfATIFFSetsThatPagesTagOnlyAndUndoGivesTheBytesBack() throws {
        let folder = try Self.madeBatch("fax.tif", pages: 2) { path in
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            let pages = try ["0000_receipt.jpg", "0018_photo.jpg"].map {
                try ScannedTIFF.page($0, .lzw, tag: 1, side: 600, in: directory)
            }
            try ScannedTIFF.join(pages, to: path)
            for page in pages { try FileManager.default.removeItem(atPath: page) }
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("fax.tif")
        let original = try Self.bytes(file)
        let entries = try ScannedTIFF.entriesButOrientation(file.path)
        #expect(try ScannedTIFF.orientations(file.path) == [1, 1])
        let review = try Review(folder: folder.path)
        let items = try review.items()
        #expect(items.map(\.page) == [1, 2] && items.allSatisfy(\.turnable))

        let stored = try ImageMetadata.read(review.preview("fax.tif", page: 2, side: 120))
        #expect(stored.width > stored.height)
        let turned = try review.turn("fax.tif", page: 2, .right, expecting: items[1].version)
        #expect(try ScannedTIFF.orientations(file.path) == [1, 6], "page 2's own tag, read by tiffdump")
        #expect(try ScannedTIFF.entriesButOrientation(file.path) == entries, "every other entry as it was")
        let now = try Self.bytes(file)
        #expect(now.count == original.count && zip(now, original).filter { $0 != $1 }.count <= 2)
        #expect(turned.personOrientation == 6 && turned.page == 2)
        let shown = try ImageMetadata.read(review.preview("fax.tif", page: 2, side: 120))
        #expect(shown.height > shown.width, "the thumbnail shows page 2 by its new tag")

        let entry = try #require(try review.journal.entries()[file.path])
        #expect(entry.personPages == [2: 6])
        let (result, _) = Undo.undo(entry, store: review.originals, dryRun: false)
        #expect(result.outcome == .restored, "\(result.reason ?? "")")
        #expect(try Self.bytes(file) == original)
    }

    @Test func aClickOnAHEICSetsItsContainerRotationAndUndoGivesTheBytesBack() throws {
        let folder = try Self.madeBatch("photo.heic") { path in
            let source = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("source.jpg")
            try ScannedTIFF.run([
                "convert", Repository.samples.appendingPathComponent("0018_photo.jpg").path, "-strip", "-resize",
                "320x320",
                source.path,
            ])
            try ScannedTIFF.run(["heif-enc", "-q", "80", "-o", path, source.path])
            try FileManager.default.removeItem(at: source)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("photo.heic")
        let original = try Self.bytes(file)
        let review = try Review(folder: folder.path)
        let item = try #require(try review.items().first)
        #expect(item.page == nil && item.turnable)
        let stored = try ImageMetadata.read(review.preview("photo.heic", side: 100))
        #expect(stored.width > stored.height)

        let turned = try review.turn("photo.heic", .right, expecting: item.version)
        let metadata = try ImageMetadata.read(Self.bytes(file))
        #expect(metadata.heifDisplayedOrientation?.exifValue == 6, "irot says a quarter turn clockwise")
        #expect(turned.personOrientation == 6)
        let shown = try ImageMetadata.read(review.preview("photo.heic", side: 100))
        #expect(shown.height > shown.width, "the thumbnail shows it as libheif displays it now")

        let now = try #require(try review.journal.entries()[file.path])
        let (result, _) = Undo.undo(now, store: review.originals, dryRun: false)
        #expect(result.outcome == .restored, "\(result.reason ?? "")")
        #expect(try Self.bytes(file) == original)
    }

    @Test func pngAndTIFFImagesGetThumbnailsAsTheyShow() throws {
        let folder = try JournalledBatch.folder(copying: ["0004_receipt.png"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let review = try Review(folder: folder.path)
        let png = try ImageMetadata.read(review.preview("0004_receipt.png", side: 100))
        #expect(png.format == .jpeg && max(png.width, png.height) <= 100 && max(png.width, png.height) >= 50)

        // A one-page TIFF of a landscape photo tagged 6: shown turned, so its thumbnail stands upright.
        let tiffFolder = try Self.madeBatch("page.tif") { path in
            let made = try ScannedTIFF.page(
                "0018_photo.jpg", .lzw, tag: 6, side: 400, in: URL(fileURLWithPath: path).deletingLastPathComponent())
            try FileManager.default.moveItem(atPath: made, toPath: path)
        }
        defer { try? FileManager.default.removeItem(at: tiffFolder) }
        let tiff = try ImageMetadata.read(Review(folder: tiffFolder.path).preview("page.tif", side: 100))
        #expect(tiff.height > tiff.width && tiff.height <= 100 && tiff.height >= 50)
    }

    @Test(arguments: ["../0000_receipt.jpg", "/etc/passwd", "sub/../../x.jpg", "./0000_receipt.jpg", "", "a\0b"])
    func aNameOutsideTheFolderIsRefusedAndNothingIsWritten(name: String) throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try Self.bytes(folder.appendingPathComponent("0000_receipt.jpg"))
        let review = try Review(folder: folder.path)
        #expect(throws: ReviewRefusal.self) { try review.turn(name, .right, expecting: "") }
        #expect(throws: ReviewRefusal.self) { try review.preview(name, side: 100) }
        #expect(try Self.bytes(folder.appendingPathComponent("0000_receipt.jpg")) == before)
    }

    @Test func aSymbolicLinkIsNeverFollowedOutOfTheFolder() throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg"])
        let outside = try JournalledBatch.folder(copying: ["0003_letter.jpg"])
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        let victim = outside.appendingPathComponent("0003_letter.jpg")
        let before = try Self.bytes(victim)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("link.jpg"), withDestinationURL: victim)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("away"), withDestinationURL: outside)
        // Even recorded by the journal, a link is refused.
        try Journal(path: Journal.location(folder.path)).save([
            try JournalledBatch.entry(
                for: folder.appendingPathComponent("link.jpg"), relative: "link.jpg", verdict: "undecidable")
        ])
        let review = try Review(folder: folder.path)
        for name in ["link.jpg", "away/0003_letter.jpg"] {
            let refusal = #expect(throws: ReviewRefusal.self) {
                try review.turn(name, .right, expecting: FileFacts.contentHash(before))
            }
            #expect(refusal?.reason == .outsideFolder, "\(name)")
        }
        #expect(try Self.bytes(victim) == before)
    }

    @Test func aFileChangedOrDeletedUnderThePageIsRefusedWithNothingWritten() throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg", "0003_letter.jpg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let review = try Review(folder: folder.path)
        let items = try review.items()

        let changed = folder.appendingPathComponent("0000_receipt.jpg")
        var edited = try Self.bytes(changed)
        edited.append(0)
        try Data(edited).write(to: changed)
        let refusal = #expect(throws: ReviewRefusal.self) {
            try review.turn(items[0].file, .right, expecting: items[0].version)
        }
        #expect(refusal?.reason == .changed)
        #expect(try Self.bytes(changed) == edited)

        try FileManager.default.removeItem(at: folder.appendingPathComponent("0003_letter.jpg"))
        let gone = #expect(throws: ReviewRefusal.self) {
            try review.turn(items[1].file, .right, expecting: items[1].version)
        }
        #expect(gone?.reason == .notFound)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("0003_letter.jpg").path))
        #expect(try review.journal.entries().values.allSatisfy { $0.decidedBy == .docorient })
    }

    @Test func aStaleVersionIsRefused() throws {
        let folder = try JournalledBatch.folder(copying: ["0000_receipt.jpg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let review = try Review(folder: folder.path)
        let refusal = #expect(throws: ReviewRefusal.self) {
            try review.turn("0000_receipt.jpg", .right, expecting: "0")
        }
        #expect(refusal?.reason == .changed)
    }

    @Test func aFolderWithoutAJournalIsRefusedWithAClearMessage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: DocOrientError.self) { try Review(folder: folder.path) }
        #expect(error?.message.contains("run docorient fix on the folder first") == true)
        #expect(!FileManager.default.fileExists(atPath: Journal.location(folder.path)), "no journal was made")
    }
}
