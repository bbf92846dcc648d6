import DocOrient
import Foundation
import Testing

/// `CSV.text`, the tests' manifest writer, against `CSV.rows`, the one reader.
struct CSVTextTests {
    @Test func aFieldWithACommaAQuoteOrALineBreakIsQuotedAndReadBackWhole() {
        let rows = [
            ["file": "a,b.jpg", "kind": "say \"hi\"", "split": "fit"],
            ["file": "c.jpg", "kind": "two\nlines", "split": "holdout"],
            ["file": "d.jpg"],
        ]
        let text = CSV.text(rows)
        #expect(
            text == """
                file,kind,split
                "a,b.jpg","say ""hi\""",fit
                c.jpg,"two
                lines",holdout
                d.jpg,,

                """)
        #expect(CSV.rows(parsing: text) == rows.map { $0.merging(["kind": "", "split": ""]) { a, _ in a } })
    }
}
