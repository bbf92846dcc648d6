import SystemPackage

/// Finds the directory holding the Tesseract models for a set of languages.
enum ModelLocator {
    /// Debian's tessdata directories, newest first.
    static let debianDirectories = ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata"]

    /// The Debian package that installs `language`'s model (chi_sim -> tesseract-ocr-chi-sim).
    static func debianPackage(for language: String) -> String {
        "tesseract-ocr-" + language.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// The first directory, in order `explicit` (only it, when given), `TESSDATA_PREFIX`, Debian's,
    /// that holds every requested model.
    /// - Throws: `.missingModel` naming the missing file, where it looked and what to install.
    static func locate(
        explicit: String?, languages value: String, environment: (String) -> String? = getEnvironment
    )
        throws -> String
    {
        let languages = try ResolverConfiguration.languageCodes(value)
        var searched: [String] = []
        if let explicit {
            searched = [explicit]
        } else {
            if let prefix = environment("TESSDATA_PREFIX"), !prefix.isEmpty { searched.append(prefix) }
            searched += debianDirectories
        }
        for directory in searched where languages.allSatisfy({ exists(path(directory, $0)) }) {
            return directory
        }
        // Name the first model missing from the most specific place searched.
        let first = searched[0]
        let missing = languages.first { !exists(path(first, $0)) } ?? languages[0]
        let places = searched.joined(separator: ", ")
        throw DocOrientError(
            .missingModel,
            "\(missing).traineddata not found in \(places): install \(debianPackage(for: missing)), or set the configuration's tessdata to the directory that holds it"
        )
    }

    private static func path(_ directory: String, _ language: String) -> String {
        FilePath(directory).appending(language + ".traineddata").string
    }

    private static func exists(_ path: String) -> Bool {
        Syscalls.isReadable(path)
    }

    static func getEnvironment(_ name: String) -> String? {
        Syscalls.environment(name)
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
