import DocOrient

/// Manifests the lab's tests write for the lab to read: the counterpart of `CSV.rows`, which reads
/// them. Here rather than beside the reader because only tests write manifests in Swift
/// (Corpus/generate.py writes the corpus's).
extension CSV {
    /// `rows` as CSV text (RFC 4180), a header of every name the rows have (sorted: the reader
    /// goes by name, not position) and a line a row; a field holding a comma, a quote or a line
    /// break is quoted, its quotes doubled, and a name a row lacks is an empty field.
    static func text(_ rows: [[String: String]]) -> String {
        let names = Set(rows.flatMap(\.keys)).sorted()
        func field(_ value: String) -> String {
            guard value.contains(where: { ",\"\n\r".contains($0) }) else { return value }
            return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        let lines = [names.map(field)] + rows.map { row in names.map { field(row[$0] ?? "") } }
        return lines.map { $0.joined(separator: ",") + "\n" }.joined()
    }
}
