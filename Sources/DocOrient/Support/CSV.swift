/// The manifests the corpus and the real sets describe their files in (`manifest.csv`): a header
/// line, then a row a file. The one reader of them, for the fits and the tests.
package enum CSV {
    /// The rows of the CSV file at `path`, each as its header's names to its values.
    /// - Throws: `DocOrientError` `.io` when the file cannot be read.
    package static func rows(atPath path: String) throws -> [[String: String]] {
        rows(parsing: String(decoding: try FileIO.read(path), as: UTF8.self))
    }

    /// The rows of `text` (RFC 4180: quoted fields may hold commas, quotes doubled and line
    /// breaks), each as its header's names to its values; a row shorter than the header lacks
    /// the names it has no value for.
    package static func rows(parsing text: String) -> [[String: String]] {
        let chars = Array(text)
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var i = 0
        while i < chars.count {
            let c = chars[i]
            i += 1
            if quoted {
                if c != "\"" {
                    field.append(c)
                } else if i < chars.count, chars[i] == "\"" {
                    field.append("\"")
                    i += 1
                } else {
                    quoted = false
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\n" || c == "\r\n" {
                row.append(field)
                rows.append(row)
                (row, field) = ([], "")
            } else if c != "\r" {
                field.append(c)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        guard let header = rows.first else { return [] }
        return rows.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { a, _ in a }) }
    }
}
