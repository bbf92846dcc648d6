import Foundation
import SystemPackage
import Testing

@testable import DocOrient

/// The one error type: a stable code, the file, and the system call or C library call underneath,
/// kept from where the failure happened to what the caller catches.
struct DocOrientErrorTests {
    @Test func aMissingFileFailsWithTheOpenCallItsErrnoAndThePath() throws {
        let path = "/nonexistent-docorient-test/scan.jpg"
        let error = try #require(throws: DocOrientError.self) { try FileIO.read(path) }
        #expect(error.code == .io)
        #expect(error.path == path)
        #expect(error.cause == .systemCall("open", .noSuchFileOrDirectory))
        #expect(error.description == "\(path): cannot open: No such file or directory")
    }

    @Test func aFolderFailsWithoutACauseSinceNothingUnderneathFailed() throws {
        let error = try #require(throws: DocOrientError.self) { try FileIO.read("/tmp") }
        #expect(error.code == .io)
        #expect(error.cause == nil)
        #expect(error.explanation == "a directory, not an image file")
    }

    @Test func aWriteIntoAMissingFolderFailsWithTheTemporaryFilesCall() throws {
        let error = try #require(throws: DocOrientError.self) {
            try FileIO.writeAtomically([1, 2, 3], to: "/nonexistent-docorient-test/out.jpg", replacing: false)
        }
        #expect(error.cause?.call == "mkstemp")
        #expect(error.cause?.errno == .noSuchFileOrDirectory)
    }

    @Test func aJPEGCutInItsScanFailsWithTurboJPEGsOwnWords() throws {
        let bytes = try FileIO.read(Fixtures.samples.appendingPathComponent("0003_letter.jpg").path)
        let cut = Array(bytes.prefix(bytes.count * 3 / 4))
        let error = try #require(throws: DocOrientError.self) {
            try TurboJPEG.decodeFull(cut, rgb: false)
        }
        #expect(error.code == .malformed)
        #expect(error.cause?.call == "tjDecompress2")
        #expect(error.cause?.errno == nil)
        #expect(error.explanation == "JPEG data is corrupt: \(error.cause?.message ?? "")")
    }

    /// A record keeps the failure whole: the fixer throws back what failed, file and cause included.
    @Test func aFailedRecordGivesBackTheErrorWithItsCauseAndFile() throws {
        let failure = DocOrientError(.io, "cannot open", cause: .systemCall("open", .permissionDenied))
        var record = FixRecord(path: "scan.jpg")
        record.fail(failure)
        #expect(record.error == failure.at("scan.jpg"))
        #expect(record.reason == "cannot open: Permission denied")
        #expect(record.errorCode == .io)
        #expect(record.jsonLine.contains(#""error_cause":{"call":"open","errno":13,"message":"Permission denied"}"#))
    }

    @Test func aPDFWhosePagesAllFailTakesTheFirstPagesCause() throws {
        var page = FixRecord(path: nil)
        page.page = 1
        page.fail(DocOrientError(.malformed, "JPEG data is corrupt", cause: .library("tjDecompress2", "bad")))
        let record = Fixer.summary(of: [page])
        #expect(record.verdict == .error)
        #expect(record.reason == "1 page: 1 failed; page 1: JPEG data is corrupt: bad")
        #expect(record.errorCause == .library("tjDecompress2", "bad"))
    }

    @Test func codesKeepTheirJSONSpellingAndUnknownOnesAreRefused() {
        #expect(
            DocOrientError.Code.all.map(\.rawValue) == [
                "unsupported_format", "malformed", "io", "limit_exceeded", "imperfect_transform", "library",
                "missing_model", "invalid_request", "encrypted",
            ])
        #expect(DocOrientError.Code(rawValue: "limit_exceeded") == .limitExceeded)
        #expect(DocOrientError.Code(rawValue: "no_such_code") == nil)
    }
}
