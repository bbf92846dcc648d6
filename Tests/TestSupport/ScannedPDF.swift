import Foundation

/// Scanned PDFs as img2pdf writes them (each corpus photo embedded as it is, one page each), read
/// back page by page with qpdf: an independent writer and an independent reader for the tests
/// of a page turned by its /Rotate.
public enum ScannedPDF {
    /// One page of a PDF as qpdf reads it.
    public struct Page: Equatable, Sendable {
        /// The page's own /Rotate, nil when it has none.
        public var rotate: Int?
        /// The raw (undecoded) bytes of its content streams and images, base64, sorted: what must
        /// not change when the page is turned by its /Rotate.
        public var streams: [String]
    }

    /// A PDF at `path` of the corpus samples, one page each, as img2pdf embeds them with no
    /// /Rotate (`--rotation=none`: the page shows each photo's stored pixels).
    public static func make(_ samples: [String], to path: String) throws {
        try ScannedTIFF.run(
            ["img2pdf", "--rotation=none"] + samples.map { Repository.samples.appendingPathComponent($0).path } + [
                "-o", path,
            ])
    }

    /// Each page of the PDF at `path`, in order, as qpdf reads it (`qpdf --json=2`).
    public static func pages(_ path: String) throws -> [Page] {
        let json = try ScannedTIFF.run([
            "qpdf", "--json=2", "--json-stream-data=inline", "--decode-level=none", "--json-key=pages",
            "--json-key=qpdf", path,
        ])
        guard let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let pages = root["pages"] as? [[String: Any]],
            let objects = (root["qpdf"] as? [Any])?.last as? [String: Any]
        else { throw CocoaError(.fileReadCorruptFile) }
        func object(_ reference: Any?) -> [String: Any]? {
            (reference as? String).flatMap { objects["obj:" + $0] as? [String: Any] }
        }
        return pages.map { page in
            let dictionary = object(page["object"])?["value"] as? [String: Any]
            let references =
                (page["contents"] as? [String] ?? [])
                + (page["images"] as? [[String: Any]] ?? []).compactMap { $0["object"] as? String }
            let streams = references.compactMap { (object($0)?["stream"] as? [String: Any])?["data"] as? String }
            return Page(rotate: dictionary?["/Rotate"] as? Int, streams: streams.sorted())
        }
    }
}
