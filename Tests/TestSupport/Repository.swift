import Foundation

/// The repository's folders, found from this file's path, for tests that read committed files
/// (`Corpus/samples`, `Tests/Fixtures`, `README.md`, `API/openapi.json`) or run the built binary.
/// The one place the test targets find the root: a test target cannot see another's files.
public enum Repository {
    /// The repository's root: two folders above this file (`Tests/TestSupport`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The committed sample photos and their manifest (`Corpus/samples`).
    public static let samples = root.appendingPathComponent("Corpus/samples")

    /// `path`, relative to the repository's root.
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }
}
