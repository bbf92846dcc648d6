import DocOrient
import DocOrientBatch
import DocOrientTestSupport
import Foundation

/// Batches written by hand, for the tests of what reads a batch's journal (the review and its
/// page): files in a temporary folder and the journal a batch that changed nothing leaves beside
/// them, no engine run.
public enum JournalledBatch {
    /// A folder with copies of the committed `samples` and a journal recording each as the batch
    /// left it (unchanged), with `verdict` and no decision.
    public static func folder(copying samples: [String], verdict: String = "undecidable") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var entries: [JournalEntry] = []
        for name in samples {
            let target = folder.appendingPathComponent(name)
            try FileManager.default.copyItem(at: Repository.samples.appendingPathComponent(name), to: target)
            entries.append(try entry(for: target, relative: name, verdict: verdict))
        }
        try Journal(path: Journal.location(folder.path)).save(entries)
        return folder
    }

    /// The journal's entry for the file at `url` as a batch that changed nothing records it.
    public static func entry(for url: URL, relative: String, verdict: String) throws -> JournalEntry {
        let bytes = [UInt8](try Data(contentsOf: url))
        let hash = FileFacts.contentHash(bytes)
        let tag = try? ImageMetadata.read(bytes).exifOrientation
        let object: [String: Any] = [
            "path": url.path, "relative_path": relative, "mode": "tag", "size": bytes.count, "mtime_ns": 0,
            "ctime_ns": 0, "inode": 0, "hash_before": hash, "hash_after": hash, "verdict": verdict,
            "action": "none", "exif_orientation": tag.flatMap { $0 }.map { $0 as Any } ?? NSNull(),
            "detected_orientation": NSNull(),
            "confidence": 0.0, "reason": "too little text", "elapsed_ms": 1.0, "record": "{\"path\":\"\(url.path)\"}",
            "updated_at": "2026-12-01T10:00:00Z",
        ]
        return try JSONDecoder().decode(JournalEntry.self, from: JSONSerialization.data(withJSONObject: object))
    }

    /// The version of the file at `url` that a turn expects: its content hash, as the journal
    /// records it.
    public static func version(of url: URL) throws -> String {
        FileFacts.contentHash([UInt8](try Data(contentsOf: url)))
    }
}
