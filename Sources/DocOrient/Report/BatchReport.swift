import Foundation

/// What `docorient report` shows: the summary of one or more journals (shards merge) and the files
/// a person should look at: disagreements, undecidables and errors.
public struct BatchReport: Sendable {
    public var entries: [JournalEntry]

    /// Reads and merges journals; a path present in several keeps its newest entry.
    public init(journals: [String]) throws {
        var merged: [String: JournalEntry] = [:]
        for path in journals {
            guard FileManager.default.fileExists(atPath: path) else {
                throw DocOrientError(.io, "no journal here (run docorient fix on a folder first, or pass --journal)", path: path)
            }
            for (key, entry) in try Journal(path: path, readOnly: true).entries() {
                if let old = merged[key], old.updatedAt > entry.updatedAt { continue }
                merged[key] = entry
            }
        }
        entries = merged.values.sorted { $0.path < $1.path }
    }

    public var noteworthy: [JournalEntry] {
        entries.filter { ["disagrees", "undecidable", "error"].contains($0.verdict) }
    }

    public var summaryLine: String {
        func count(_ f: (JournalEntry) -> Bool) -> Int { entries.filter(f).count }
        let fixed = count { $0.action == "tag_rewritten" || $0.action == "baked" }
        return "\(entries.count) files: \(count { $0.verdict == "agrees" }) agreed, \(count { $0.verdict == "disagrees" }) disagreed with their tag, "
            + "\(fixed) fixed, \(count { $0.verdict == "no_tag" }) had no tag, \(count { $0.verdict == "undecidable" }) undecidable, "
            + "\(count { $0.verdict == "error" }) failed"
    }

    /// One self-contained HTML page: a contact sheet of every noteworthy file, as a viewer showed it
    /// before and as docorient shows it now, with the orientations, confidence and reason.
    public func html(thumbnailSide: Int = 220) -> String {
        var rows = ""
        for entry in noteworthy {
            let previews = Self.previews(entry, side: thumbnailSide)
            func img(_ data: String?, _ alt: String) -> String {
                guard let data else { return "<div class=none>no preview</div>" }
                return "<img alt=\"\(alt)\" src=\"data:image/jpeg;base64,\(data)\">"
            }
            let old = entry.exifOrientation.map(String.init) ?? "none"
            let new = entry.detectedOrientation.map(String.init) ?? "—"
            rows += """
                <tr class="\(entry.verdict)"><td>\(img(previews.before, "before"))</td><td>\(img(previews.after, "after"))</td>
                <td><div class=path>\(Self.escape(entry.path))</div><div><b>\(entry.verdict)</b> · action \(entry.action)</div>
                <div>tag \(old) → \(new) · confidence \(String(format: "%.2f", entry.confidence))</div>
                <div class=reason>\(Self.escape(entry.reason ?? ""))</div></td></tr>

                """
        }
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>docorient report</title><style>
            body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse}
            td{border-bottom:1px solid #ddd;padding:8px;vertical-align:top}img{max-width:\(thumbnailSide)px;max-height:\(thumbnailSide)px;box-shadow:0 0 3px #999}
            .path{font-family:monospace;word-break:break-all}.reason{color:#666}.none{color:#999;width:\(thumbnailSide)px}
            tr.error b{color:#b00}tr.undecidable b{color:#a60}tr.disagrees b{color:#06a}th{text-align:left;padding:8px}
            </style></head><body><h1>docorient report</h1><p>\(Self.escape(summaryLine))</p>
            <p>\(noteworthy.count) files to look at: disagreements with the original tag, undecidables and errors.</p>
            <table><tr><th>before (as a viewer showed it)</th><th>after (as docorient shows it)</th><th>file</th></tr>
            \(rows)</table></body></html>
            """
    }

    /// Small JPEG previews (base64): the file's pixels as a viewer showed them before the fix and as
    /// they show now. Reconstructed from the current file and the journal, whatever the action was.
    static func previews(_ entry: JournalEntry, side: Int) -> (before: String?, after: String?) {
        guard let bytes = try? FileIO.read(entry.path), let metadata = try? ImageMetadata.read(bytes),
            let stored = try? Preview.decode(bytes, metadata: metadata, side: side)
        else { return (nil, nil) }
        let original = entry.exifOrientation.flatMap(Orientation.init(exifValue:)) ?? .identity
        let now = metadata.effectiveOrientation ?? .identity
        // A baked file's pixels are the old pixels turned by the detected orientation.
        var oldPixels = stored
        if entry.action == "baked", let detected = entry.detectedOrientation.flatMap(Orientation.init(exifValue:)) {
            oldPixels = stored.transformed(by: detected.inverse, channels: 3)
        }
        let before = Preview.jpegBase64(oldPixels.transformed(by: original, channels: 3))
        let after = Preview.jpegBase64(stored.transformed(by: now, channels: 3))
        return (before, after)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Small RGB previews for reports.
enum Preview {
    static func decode(_ bytes: [UInt8], metadata: ImageMetadata, side: Int) throws -> GrayImage {
        guard metadata.format == .jpeg else {
            throw DocOrientError(.invalidRequest, "previews are made for JPEG only")
        }
        var image = try TurboJPEG.decodeScaled(bytes, minimumLongSide: side, maxPixels: 200_000_000, rgb: true)
        // Shrink further by whole steps so the page stays small.
        let w = image.width / 3
        let step = max(1, max(w, image.height) / side)
        if step > 1 {
            let ow = w / step, oh = image.height / step
            var out = [UInt8](repeating: 0, count: ow * oh * 3)
            for y in 0..<oh {
                for x in 0..<ow {
                    for c in 0..<3 { out[(y * ow + x) * 3 + c] = image.pixels[((y * step) * w + x * step) * 3 + c] }
                }
            }
            image = GrayImage(width: ow * 3, height: oh, pixels: out)
        }
        return image
    }

    static func jpegBase64(_ image: GrayImage) -> String? {
        guard let jpeg = try? TurboJPEG.encode(image.pixels, width: image.width / 3, height: image.height, subsampling: .s420, quality: 80)
        else { return nil }
        return Data(jpeg).base64EncodedString()
    }
}
