import DocOrient
import SystemPackage

/// Finds the image files under the paths a user gave: recursive, hidden entries skipped unless
/// asked for, symlinks followed with loop detection, each file once however it is reached.
public struct FileWalker: Sendable {
    /// Extensions taken as images (and PDFs of scanned pages) when walking folders (files named
    /// explicitly are always tried).
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "tif", "tiff", "heic", "heif", "hif", "avif", "pdf",
    ]

    /// Glob patterns (fnmatch, matched against the path relative to its root and against the name).
    /// When any are given, a file in a folder is taken only if one matches, whatever its extension.
    public var include: [String]
    /// Glob patterns, matched as `include`: matching files are skipped and matching folders not entered.
    public var exclude: [String]
    /// Whether entries whose name starts with "." are walked; docorient's own (`.docorient*`) never are.
    public var includeHidden: Bool
    /// Only the files of this part (`--shard K/N`), by their path relative to the root.
    public var shard: Shard?

    /// A walker; the defaults take every image by extension, skip hidden entries and split nothing.
    public init(include: [String] = [], exclude: [String] = [], includeHidden: Bool = false, shard: Shard? = nil) {
        self.include = include
        self.exclude = exclude
        self.includeHidden = includeHidden
        self.shard = shard
    }

    /// What a walk found.
    public struct Result: Sendable {
        /// Image files, each once, in a stable order: the roots in the order given, each folder
        /// depth first with its entries sorted by name (String order, i.e. Unicode code points:
        /// "B" < "a", "10" < "9"). `fix` prints its records in this order.
        public var files: [String] = []
        /// Files that are not images by name (or excluded by pattern), counted, not listed.
        public var skippedNonImages = 0
        /// Hidden entries that were skipped.
        public var skippedHidden = 0
        /// Directories reached again through a symlink (loops and duplicates), skipped.
        public var symlinkLoops = 0
        /// Files that belong to other shards.
        public var otherShards = 0
        /// Entries that could not be read, with the reason.
        public var problems: [String] = []
        /// Temporary files an interrupted earlier run left behind (ours, by name), removed.
        public var staleTemporaries = 0
    }

    /// Walks `roots` (files or folders) on the calling thread.
    ///
    /// A root that is a file is taken whatever its name (the patterns and extensions apply inside
    /// folders; a shard still applies, by the file's name), and one that does not exist is listed
    /// as is, so that fixing it reports the error. A file reached twice (a symlink) is listed once.
    /// Temporary files an interrupted run left in a walked folder, untouched for over a minute,
    /// are deleted on the way (`Result.staleTemporaries`).
    public func walk(_ roots: [String]) -> Result {
        var result = Result()
        var seenDirectories = Set<FileID>()
        var seenFiles = Set<FileID>()
        for root in roots {
            guard let st = try? FileStatus(root) else {
                // Reported as a per-file error by the fixer, which names the reason.
                result.files.append(root)
                continue
            }
            if st.kind == .directory {
                seenDirectories.insert(FileID(st))
                walkDirectory(root, relative: "", into: &result, directories: &seenDirectories, files: &seenFiles)
            } else if seenFiles.insert(FileID(st)).inserted {
                let name = root.split(separator: "/").last.map(String.init) ?? root
                if let shard, !shard.contains(name) {
                    result.otherShards += 1
                } else {
                    result.files.append(root)
                }
            }
        }
        return result
    }

    struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ st: FileStatus) {
            device = st.device
            inode = st.inode
        }
    }

    private func walkDirectory(
        _ directory: String, relative: String, into result: inout Result, directories: inout Set<FileID>,
        files: inout Set<FileID>
    ) {
        let names: [String]
        do {
            names = try Syscalls.directoryEntries(directory)
        } catch {
            result.problems.append("\(directory): cannot read the folder: \(error)")
            return
        }
        for name in names.sorted() {
            let path = FilePath(directory).appending(name).string
            let rel = FilePath(relative).appending(name).string
            if name.hasPrefix(".") {
                if FileWalker.isOurTemporary(name) {
                    if removeIfStale(path) { result.staleTemporaries += 1 }
                    continue
                }
                if name.hasPrefix(".docorient") || !includeHidden {
                    result.skippedHidden += 1
                    continue
                }
            }
            let st: FileStatus
            do {
                st = try FileStatus(path)
            } catch {
                result.problems.append("\(path): \(error)")
                continue
            }
            switch st.kind {
            case .directory:
                guard directories.insert(FileID(st)).inserted else {
                    result.symlinkLoops += 1
                    continue
                }
                if exclude.contains(where: { matches($0, rel, name) }) { continue }
                walkDirectory(path, relative: rel, into: &result, directories: &directories, files: &files)
            default:
                guard isWanted(rel: rel, name: name) else {
                    result.skippedNonImages += 1
                    continue
                }
                if let shard, !shard.contains(rel) {
                    result.otherShards += 1
                } else if files.insert(FileID(st)).inserted {
                    result.files.append(path)
                }
            }
        }
    }

    func isWanted(rel: String, name: String) -> Bool {
        if exclude.contains(where: { matches($0, rel, name) }) { return false }
        if !include.isEmpty { return include.contains { matches($0, rel, name) } }
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return name.contains(".") && FileWalker.imageExtensions.contains(ext)
    }

    private func matches(_ pattern: String, _ rel: String, _ name: String) -> Bool {
        Syscalls.globMatches(pattern, rel) || Syscalls.globMatches(pattern, name)
    }

    /// `FileIO.writeAtomically` names its temporary files ".NAME.docorient-XXXXXX".
    static func isOurTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.count > 17 && name.suffix(17).hasPrefix(".docorient-")
    }

    /// Removes a temporary file that no writer can still be using (untouched for a minute).
    private func removeIfStale(_ path: String) -> Bool {
        guard let st = try? FileStatus(path, followingLinks: false), st.kind == .regular else { return false }
        guard Syscalls.now() - st.modifiedNanoseconds / 1_000_000_000 > 60 else { return false }
        return (try? Syscalls.remove(path)) != nil
    }
}
