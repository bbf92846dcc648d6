import DocOrient
import DocOrientBatch
import Foundation
import Mustache

/// The review page: the Mustache templates `review.mustache` and `card.mustache` (compiled into
/// the binary), filled with the batch's files. Thread-safe: it holds only values.
struct ReviewPage: Sendable {
    let review: Review
    let token: String?
    private let library: MustacheLibrary

    init(review: Review, token: String?) {
        self.review = review
        self.token = token
        var library = MustacheLibrary()
        // The templates are part of the build: one that does not parse fails the tests, not a user.
        if let page = try? MustacheTemplate(string: String(decoding: PackageResources.review_mustache, as: UTF8.self)),
            let card = try? MustacheTemplate(string: String(decoding: PackageResources.card_mustache, as: UTF8.self))
        {
            library.register(page, named: "review")
            library.register(card, named: "card")
        }
        self.library = library
    }

    /// The page header's counts: the batch's summary line and how many files and pages still
    /// need a look first (a turn answers with them, so the header follows the clicks).
    func counts() throws -> (summary: String, attention: Int) {
        (
            try BatchReport(journals: [review.journal.path]).summaryLine,
            try review.items().filter { $0.attention != nil }.count
        )
    }

    /// The page: the files that need a look, and with `all` the rest too.
    func render(all: Bool) throws -> String {
        let items = try review.items()
        let attention = items.filter { $0.attention != nil }
        let rest = items.filter { $0.attention == nil }
        let page = PageView(
            folderName: FilePathName.last(review.folder),
            summary: try BatchReport(journals: [review.journal.path]).summaryLine, token: token ?? "",
            attentionCards: attention.map { CardView($0, tokenQuery: tokenQuery) }, attentionCount: attention.count,
            restCards: all ? rest.map { CardView($0, tokenQuery: tokenQuery) } : [], restCount: rest.count,
            hasRest: !rest.isEmpty, showRest: all && !rest.isEmpty, restHref: "?all=1" + tokenQuery)
        guard let html = library.render(page, withTemplate: "review") else {
            throw DocOrientError(.library, "the review page's template is missing")
        }
        return html
    }

    /// The token as the rest of a query (`&token=...`), empty without one.
    private var tokenQuery: String { token.map { "&token=" + Self.queryEscaped($0) } ?? "" }

    /// What `review.mustache` shows. A name a card lacks (a nil) is looked up in the page, as
    /// Mustache does: so no card's name is also the page's.
    struct PageView {
        var folderName: String
        var summary: String
        var token: String
        var attentionCards: [CardView]
        var attentionCount: Int
        var restCards: [CardView]
        var restCount: Int
        // A section over a number renders for 0 too: the template tests a Bool.
        var hasRest: Bool
        var showRest: Bool
        var restHref: String
    }

    /// What `card.mustache` shows of one file or page.
    struct CardView {
        var file: String
        var version: String
        var turnable: Bool
        var answer: String
        var byPerson: Bool
        var attention: String?
        var reason: String?
        var personOrientation: Int?
        var hasPage: Bool
        var page: Int?
        var pageCount: Int?
        var previewURL: String?

        init(_ item: ReviewItem, tokenQuery: String) {
            file = item.file
            version = item.version
            turnable = item.turnable
            if let orientation = item.docorientOrientation {
                let confidence = String(format: "%.2f", item.confidence)
                answer = "\(item.verdict.rawValue), orientation \(orientation), confidence \(confidence)"
            } else {
                answer = item.verdict.rawValue
            }
            byPerson = item.personOrientation != nil
            attention = item.attention
            reason = item.reason.flatMap { $0.isEmpty ? nil : $0 }
            personOrientation = item.personOrientation
            hasPage = item.page != nil
            page = item.page
            pageCount = item.page.map { item.pageCount ?? $0 }
            // Every image format gets a thumbnail; a PDF's pages do when docorient read their image.
            let previewable = item.page == nil ? !item.file.lowercased().hasSuffix(".pdf") : item.turnable
            let pageQuery = item.page.map { "&page=\($0)" } ?? ""
            if previewable {
                previewURL = "preview?file=" + ReviewPage.queryEscaped(item.file) + pageQuery + tokenQuery
            }
        }
    }

    /// `text` as a query parameter's value.
    static func queryEscaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// The last component of a path, for the page's title.
enum FilePathName {
    static func last(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}
