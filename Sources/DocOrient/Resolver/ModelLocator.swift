import SystemPackage

/// Finds the directory holding the Tesseract models for a set of languages.
package enum ModelLocator {
    /// Debian's tessdata directories, newest first.
    static let debianDirectories = ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata"]

    /// The Debian package that installs `language`'s model (chi_sim -> tesseract-ocr-chi-sim).
    static func debianPackage(for language: String) -> String {
        "tesseract-ocr-" + language.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// The first directory, in order `explicit` (only it, when given), `TESSDATA_PREFIX`, Debian's,
    /// that holds every requested model.
    /// - Throws: `.missingModel` naming the missing file, where it looked and what to install.
    package static func locate(
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
            "\(missing).traineddata not found in \(places): install \(debianPackage(for: missing)), or set the "
                + "configuration's tessdata to the directory that holds it"
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

    /// Where a file docorient ships beside its binary is looked for, in order:
    /// `<executable>/../<installed>` (an installed tree), `/usr/<installed>` (the Debian package) and
    /// `<tree>` of the source tree this library was built from (a build from source, a package
    /// depending on this one by path).
    /// - Parameter sourceFile: this file's path (`#filePath` here), from which the tree's root is found.
    static func shippedPlaces(
        of fileName: String, installed: String, tree: String, executable: String?, sourceFile: String
    ) -> [String] {
        var places: [String] = []
        if let executable {
            let prefix = FilePath(executable).removingLastComponent().removingLastComponent()
            places.append(prefix.appending(installed).appending(fileName).string)
        }
        places.append(FilePath("/usr").appending(installed).appending(fileName).string)
        // This file is <root>/Sources/DocOrient/Resolver/ModelLocator.swift.
        var root = FilePath(sourceFile)
        for _ in 0..<4 { root = root.removingLastComponent() }
        places.append(root.appending(tree).appending(fileName).string)
        return places
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}

/// Finds the orientation classifier's model file: docorient's own model 2
/// (`Models/orientation/README.md`: PP-LCNet, `Models/classifier`, with a class for nothing to
/// orient).
enum ClassifierLocator {
    /// The model's file name, the same in every place it is looked for.
    static let fileName = "docorient_orientation.onnx"

    /// The places looked in, in order: `explicit` (only it, when given: a file), then the
    /// directories `$DOCORIENT_MODELS`, `<executable>/../share/docorient` (an installed tree),
    /// `/usr/share/docorient` (the Debian package) and `Models/orientation` of the source tree this
    /// library was built from (a build from source, a package depending on this one by path).
    static func candidates(
        explicit: String?, environment: (String) -> String? = ModelLocator.getEnvironment,
        executable: String? = Syscalls.executablePath(), sourceFile: String = #filePath
    ) -> [String] {
        if let explicit { return [explicit] }
        var places: [String] = []
        if let directory = environment("DOCORIENT_MODELS"), !directory.isEmpty {
            places.append(FilePath(directory).appending(fileName).string)
        }
        return places
            + ModelLocator.shippedPlaces(
                of: fileName, installed: "share/docorient", tree: "Models/orientation", executable: executable,
                sourceFile: sourceFile)
    }

    /// The first readable place of `candidates`.
    /// - Throws: `.missingModel` naming where it looked and what to install.
    static func locate(
        explicit: String?, environment: (String) -> String? = ModelLocator.getEnvironment
    ) throws
        -> String
    {
        let places = candidates(explicit: explicit, environment: environment)
        if let found = places.first(where: Syscalls.isReadable) { return found }
        if let explicit {
            throw DocOrientError(
                .missingModel,
                "the orientation classifier \(explicit) was not found or cannot be read: name the \(fileName) "
                    + "file, or leave the setting out to use the installed one")
        }
        throw DocOrientError(
            .missingModel,
            "the orientation classifier \(fileName) was not found in \(places.joined(separator: ", ")): "
                + "install the docorient package, set DOCORIENT_MODELS to the directory that holds it, "
                + "or set the configuration's classifierModel to the file")
    }
}

/// Finds onnxruntime's shared library, the runtime the orientation classifier runs in
/// (`libonnxruntime.so.1` of the onnxruntime 1.28.0 wheel, MIT: `Models/runtime/README.md`).
enum RuntimeLocator {
    /// The library's file name, the same in every place it is looked for.
    static let fileName = "libonnxruntime.so.1"
    /// This file, whatever file calls: a `#filePath` default argument would be the caller's, and
    /// the source tree's root is found from here.
    static let thisFile = #filePath

    /// The places looked in, in order: `$DOCORIENT_ONNXRUNTIME` (only it, when set), then
    /// `<executable>/../lib/docorient` (an installed tree), `/usr/lib/docorient` (the Debian
    /// package) and `Models/runtime` of the source tree this library was built from, where
    /// `Scripts/bootstrap.sh` puts it.
    static func candidates(
        environment: (String) -> String? = ModelLocator.getEnvironment,
        executable: String? = Syscalls.executablePath(), sourceFile: String = thisFile
    ) -> [String] {
        if let explicit = environment("DOCORIENT_ONNXRUNTIME"), !explicit.isEmpty { return [explicit] }
        return ModelLocator.shippedPlaces(
            of: fileName, installed: "lib/docorient", tree: "Models/runtime", executable: executable,
            sourceFile: sourceFile)
    }

    /// The first readable place of `candidates`.
    /// - Throws: `.missingModel` naming the places and what to do when none holds the library, or
    ///   when `$DOCORIENT_ONNXRUNTIME` names a file that cannot be read.
    static func locate(
        environment: (String) -> String? = ModelLocator.getEnvironment,
        executable: String? = Syscalls.executablePath(), sourceFile: String = thisFile
    ) throws -> String {
        if let explicit = environment("DOCORIENT_ONNXRUNTIME"), !explicit.isEmpty {
            guard Syscalls.isReadable(explicit) else {
                throw DocOrientError(
                    .missingModel,
                    "DOCORIENT_ONNXRUNTIME names \(explicit), which cannot be read: name onnxruntime's "
                        + "\(fileName), or unset it")
            }
            return explicit
        }
        let places = candidates(environment: environment, executable: executable, sourceFile: sourceFile)
        guard let found = places.first(where: Syscalls.isReadable) else {
            throw DocOrientError(
                .missingModel,
                "onnxruntime's library \(fileName), the orientation classifier's runtime, was not found in "
                    + "\(places.joined(separator: ", ")): install the docorient package, run "
                    + "python3 Models/runtime/extract.py in the source tree, or set DOCORIENT_ONNXRUNTIME to the file")
        }
        return found
    }
}
