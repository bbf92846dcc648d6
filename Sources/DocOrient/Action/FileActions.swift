import SystemPackage

/// Where a changed file goes.
public enum Destination: Sendable, Equatable {
    /// Replace the original atomically.
    case inPlace
    /// Write a copy named like the original into this directory; the original is never touched.
    case directory(String)
}

/// The file-level operations behind `docorient tag` and `docorient bake`: read, change in memory,
/// write atomically. Safe to call from many threads on different files.
public enum FileActions {
    /// What happened to one file.
    public struct Outcome: Sendable, Equatable {
        /// Whether any bytes were written (in place or as a copy).
        public var wrote: Bool
        /// Where the result is (the original path when nothing was written).
        public var resultPath: String
        /// For bakes: what the bake did.
        public var bake: Bake.Outcome?
    }

    /// Sets every orientation tag of the file at `path` to `orientation`.
    public static func tag(
        _ path: String, to orientation: Orientation, destination: Destination = .inPlace
    ) throws -> Outcome {
        do {
            let bytes = try FileIO.read(path)
            let changed = try TagRewrite.setting(orientation, in: bytes)
            return try commit(changed, original: bytes, path: path, destination: destination)
        } catch let error as DocOrientError {
            throw error.at(path)
        }
    }

    /// Bakes `orientation` (default: the file's current tag) into the pixels of the file at `path`.
    public static func bake(
        _ path: String, orientation: Orientation? = nil, trim: Bool = false, maxPixels: Int = Bake.defaultMaxPixels,
        destination: Destination = .inPlace
    ) throws -> Outcome {
        do {
            let bytes = try FileIO.read(path)
            let result = try Bake.apply(orientation, to: bytes, trim: trim, maxPixels: maxPixels)
            var outcome = try commit(result.bytes, original: bytes, path: path, destination: destination)
            outcome.bake = result.outcome
            return outcome
        } catch let error as DocOrientError {
            throw error.at(path)
        }
    }

    /// Writes `bytes` for the file that held `original`: nothing when in place and unchanged (the
    /// file stays byte-identical, mtime included), a copy when a directory is given.
    public static func commit(
        _ bytes: [UInt8], original: [UInt8], path: String, destination: Destination
    ) throws -> Outcome {
        switch destination {
        case .inPlace:
            guard bytes != original else { return Outcome(wrote: false, resultPath: path) }
            guard !FileIO.isReadOnly(path) else {
                throw DocOrientError(
                    .io,
                    "the file is read-only; docorient does not replace read-only files (write a copy to another "
                        + "folder instead)",
                    path: path)
            }
            try FileIO.writeAtomically(bytes, to: path)
            return Outcome(wrote: true, resultPath: path)
        case .directory(let directory):
            guard let name = FilePath(path).lastComponent else {
                throw DocOrientError(.invalidRequest, "the path names no file", path: path)
            }
            let target = FilePath(directory).appending(name).string
            try FileIO.writeAtomically(bytes, to: target, replacing: false, modeFrom: path)
            return Outcome(wrote: true, resultPath: target)
        }
    }
}
