import Foundation
import Testing

@testable import DocOrient

/// A record read back from the line it wrote is the same record: what a report reads from a
/// journal and writes again.
struct FixRecordTests {
    @Test func aRecordReadBackFromItsJSONLineWritesTheSameLine() throws {
        var page = FixRecord(path: nil)
        page.page = 1
        page.exifOrientation = 1
        page.detectedOrientation = 6
        page.confidence = 0.9731
        page.margin = 0.5
        page.verdict = .disagrees
        page.action = .tagRewritten
        page.candidates = [
            CandidateScore(orientation: .rotate90, score: 36.62, characters: 19, meanConfidence: 96.3),
            CandidateScore(orientation: .identity, score: 0, characters: 0, meanConfidence: 0),
        ]
        page.decidedBy = .text
        page.classifier = [.identity: 0.0244, .rotate90: 0.9501]
        page.nothing = 0.0102
        page.work = 12
        page.elapsedMilliseconds = 135.9
        var failed = FixRecord(path: nil)
        failed.page = 2
        failed.fail(DocOrientError(.io, "cannot open", cause: .systemCall("open", .permissionDenied)))
        var record = FixRecord(path: "/scans/two pages.pdf")
        record.pages = [page, failed]
        record.reason = "2 pages: 1 turned, 1 failed"

        for written in [record, page, failed, FixRecord(path: "empty.jpg")] {
            let read = try JSONDecoder().decode(FixRecord.self, from: Data(written.jsonLine.utf8))
            #expect(read.jsonLine == written.jsonLine)
        }
    }

    /// The line for people names who answered: the text, the classifier alone, or both together.
    @Test func theHumanLineNamesWhoAnswered() throws {
        var record = FixRecord(path: "sign.jpg")
        record.exifOrientation = 1
        record.detectedOrientation = 8
        record.confidence = 0.89
        record.verdict = .disagrees
        record.action = .tagRewritten
        record.decidedBy = .both
        #expect(
            record.humanLine
                == "sign.jpg: tag 1 is wrong, text and the classifier say 8 (confidence 89%); tag rewritten")
        let read = try JSONDecoder().decode(FixRecord.self, from: Data(record.jsonLine.utf8))
        #expect(read.decidedBy == .both && record.jsonLine.contains(#""decided_by":"both""#))
        record.decidedBy = .classifier
        #expect(record.humanLine.contains("the classifier says 8"))
        record.decidedBy = .text
        #expect(record.humanLine.contains("text says 8"))
    }

    /// A record of an older docorient, without the keys added since, reads as an empty record's values.
    @Test func aRecordWithoutTheNewerKeysReadsWithTheirEmptyValues() throws {
        let line = #"{"path":"a.jpg","verdict":"agrees","action":"none","confidence":0.99,"exif_orientation":1}"#
        let read = try JSONDecoder().decode(FixRecord.self, from: Data(line.utf8))
        #expect(read.path == "a.jpg" && read.verdict == .agrees && read.confidence == 0.99)
        #expect(read.candidates.isEmpty && read.classifier.isEmpty && read.decidedBy == nil && read.work == 0)
    }
}
