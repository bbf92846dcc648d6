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
        let summary = try BatchReport(journals: [review.journal.path]).summaryLine
        let tokenQuery = token.map { "&token=" + Self.queryEscaped($0) } ?? ""
        let context: [String: Any] = [
            "folderName": FilePathName.last(review.folder),
            "summary": summary,
            "token": token ?? "",
            "attention": attention.map { card($0) },
            "attentionCount": attention.count,
            "rest": all ? rest.map { card($0) } : [],
            "restCount": rest.count,
            // A section over a number renders for 0 too: the template tests a Bool.
            "hasRest": !rest.isEmpty,
            "showRest": all && !rest.isEmpty,
            "restHref": "?all=1" + tokenQuery,
        ]
        guard let html = library.render(context, withTemplate: "review") else {
            throw DocOrientError(.library, "the review page's template is missing")
        }
        return html
    }

    private func card(_ item: ReviewItem) -> [String: Any] {
        let answer: String
        if let orientation = item.docorientOrientation {
            answer =
                "\(item.verdict.rawValue), orientation \(orientation), confidence \(String(format: "%.2f", item.confidence))"
        } else {
            answer = item.verdict.rawValue
        }
        // Every image format gets a thumbnail; a PDF's pages do when docorient read their image.
        let previewable = item.page == nil ? !item.file.lowercased().hasSuffix(".pdf") : item.turnable
        let tokenQuery = token.map { "&token=" + Self.queryEscaped($0) } ?? ""
        let pageQuery = item.page.map { "&page=\($0)" } ?? ""
        var card: [String: Any] = [
            "file": item.file,
            "version": item.version,
            "turnable": item.turnable,
            "answer": answer,
            "byPerson": item.personOrientation != nil,
        ]
        if let attention = item.attention { card["attention"] = attention }
        if let reason = item.reason, !reason.isEmpty { card["reason"] = reason }
        if let person = item.personOrientation { card["personOrientation"] = person }
        if let page = item.page {
            card["hasPage"] = true
            card["page"] = page
            card["pageCount"] = item.pageCount ?? page
        }
        if previewable {
            card["previewURL"] = "preview?file=" + Self.queryEscaped(item.file) + pageQuery + tokenQuery
        }
        return card
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
