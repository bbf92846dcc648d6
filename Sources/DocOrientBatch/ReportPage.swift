import DocOrient
import Foundation
import Mustache

extension BatchReport {
    /// One self-contained HTML page: a contact sheet of every file a reviewer must see, grouped,
    /// as a viewer showed it before and as docorient shows it now, with the orientations,
    /// confidence, reason and the command that undoes the change. Filters by group and by
    /// confidence run in the page itself (plain JavaScript, no server), and can be set from the
    /// address (`review.html#groups=changed,failed&below=0.9`). The page is the Mustache template
    /// `report.mustache` (its cells `report-cell.mustache`), compiled into the binary.
    /// - Throws: `DocOrientError` `.library` when the templates do not parse (the tests catch it).
    public func html(thumbnailSide: Int = 220) throws -> String {
        let listed = noteworthy
        let page = ReportView(
            summary: summaryLine, listedCount: listed.count,
            groups: Group.allCases.map { group in
                ReportView.GroupView(
                    name: group.rawValue, title: group.title, count: listed.filter { $0.group == group }.count)
            },
            rows: listed.map { row($0.group, $0.entry, thumbnailSide: thumbnailSide) },
            thumbnailSide: thumbnailSide)
        guard let html = Self.templates.render(page, withTemplate: "report") else {
            throw DocOrientError(.library, "the report page's template does not parse")
        }
        return html
    }

    /// The report's templates; empty when one does not parse, which `html` reports.
    private static let templates: MustacheLibrary = {
        var library = MustacheLibrary()
        // A template file ends in a newline, as text files do; the page does not want it.
        func template(_ bytes: [UInt8]) -> MustacheTemplate? {
            try? MustacheTemplate(string: String(String(decoding: bytes, as: UTF8.self).dropLast()))
        }
        if let page = template(PackageResources.report_mustache),
            let cell = template(PackageResources.report_cell_mustache)
        {
            library.register(page, named: "report")
            library.register(cell, named: "cell")
        }
        return library
    }()

    /// What `report.mustache` shows. A name a row or cell lacks (a nil) is looked up in the
    /// enclosing values, as Mustache does: so no name is used at two levels.
    struct ReportView {
        var summary: String
        var listedCount: Int
        var groups: [GroupView]
        var rows: [RowView]
        var thumbnailSide: Int

        /// One group's filter box and count.
        struct GroupView {
            var name: String
            var title: String
            var count: Int
        }
    }

    /// One listed file.
    struct RowView {
        var verdict: String
        var group: String
        var groupTitle: String
        /// To 3 digits, for the filter.
        var confidence: String
        /// To 2 digits, for people.
        var shownConfidence: String
        var before: CellView
        var after: CellView
        var path: String
        var action: String
        var tagBefore: String
        var tagAfter: String
        var reason: String
        var undo: String?
    }

    /// A file's preview (`report-cell.mustache`): one image, or a PDF's or multi-page file's
    /// pages and how many more it has.
    struct CellView {
        var figures: [FigureView]
        /// Nil for none: a section over 0 renders.
        var more: Int?
    }

    /// One image of a cell: a base64 JPEG, nil when there is no preview; `page` for a page's.
    struct FigureView {
        var page: Int?
        var alt: String
        var jpeg: String?
    }

    private func row(_ group: Group, _ entry: JournalEntry, thumbnailSide: Int) -> RowView {
        let cells: (before: CellView, after: CellView)
        if let pages = Self.pagePreviews(entry, side: thumbnailSide) {
            // A PDF: each page whose image docorient read, before and after, side by side.
            func cell(_ which: KeyPath<PagePreview, String?>, _ alt: String) -> CellView {
                guard !pages.previews.isEmpty else { return CellView(figures: [FigureView(alt: alt)]) }
                return CellView(
                    figures: pages.previews.map { FigureView(page: $0.page, alt: alt, jpeg: $0[keyPath: which]) },
                    more: pages.more > 0 ? pages.more : nil)
            }
            cells = (cell(\.before, "before"), cell(\.after, "after"))
        } else {
            let previews = Self.previews(entry, side: thumbnailSide)
            cells = (
                CellView(figures: [FigureView(alt: "before", jpeg: previews.before)]),
                CellView(figures: [FigureView(alt: "after", jpeg: previews.after)])
            )
        }
        return RowView(
            verdict: entry.verdict.rawValue, group: group.rawValue, groupTitle: group.title,
            confidence: String(format: "%.3f", entry.confidence),
            shownConfidence: String(format: "%.2f", entry.confidence), before: cells.before, after: cells.after,
            path: entry.path, action: entry.action.rawValue,
            tagBefore: entry.exifOrientation.map(String.init) ?? "none",
            tagAfter: entry.detectedOrientation.map(String.init) ?? "—", reason: entry.reason ?? "",
            undo: undoCommand(for: entry))
    }

    /// Small JPEG previews (base64): the file's pixels as a viewer showed them before the fix and as
    /// they show now. Reconstructed from the current file and the journal, whatever the action was.
    static func previews(_ entry: JournalEntry, side: Int) -> (before: String?, after: String?) {
        guard let bytes = try? FileIO.read(entry.path), let metadata = try? ImageMetadata.read(bytes),
            let stored = try? PreviewImage(bytes, metadata: metadata, side: side)
        else { return (nil, nil) }
        let original = entry.exifOrientation.flatMap(Orientation.init(exifValue:)) ?? .identity
        let now = metadata.effectiveOrientation ?? .identity
        // A baked file's pixels are the old pixels turned by the detected orientation.
        var oldPixels = stored
        if entry.action == .fixed(.baked),
            let detected = entry.detectedOrientation.flatMap(Orientation.init(exifValue:))
        {
            oldPixels = stored.transformed(by: detected.inverse)
        }
        let before = oldPixels.transformed(by: original).jpegBase64
        let after = stored.transformed(by: now).jpegBase64
        return (before, after)
    }

    /// Most pages of one PDF the review page shows previews of.
    static let maxPagePreviews = 50

    /// One page of a PDF on the review page: base64 JPEG previews of its image before and after.
    struct PagePreview {
        var page: Int
        var before: String?
        var after: String?
    }

    /// For a PDF's entry (its record has page records), the previews of each page whose image
    /// docorient read (the first `maxPagePreviews`; `more` counts the rest): the image as the
    /// page showed it before the fix (the page record's orientation) and as the page shows it
    /// now (read from the current file). Made from the image docorient decodes, not rendered.
    /// Nil for an image file's entry.
    static func pagePreviews(_ entry: JournalEntry, side: Int) -> (previews: [PagePreview], more: Int)? {
        let pages = entry.pageRecords
        guard !pages.isEmpty else { return nil }
        let read = pages.compactMap { page in
            page.record.exifOrientation.flatMap(Orientation.init(exifValue:)).map { (page: page.number, before: $0) }
        }
        let listed = read.prefix(maxPagePreviews)
        let now =
            (try? FileIO.read(entry.path)).map {
                PreviewImage.pdfPages($0, pages: listed.map(\.page), side: listed.count > 1 ? side / 2 : side)
            } ?? [:]
        let previews = listed.map { page in
            let preview = now[page.page]
            return PagePreview(
                page: page.page, before: preview?.stored.transformed(by: page.before).jpegBase64,
                after: preview.flatMap { $0.stored.transformed(by: $0.shown).jpegBase64 })
        }
        return (previews, read.count - listed.count)
    }
}
