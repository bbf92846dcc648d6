#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The libc calls docorient makes outside the C libraries' wrappers (`Interop/`) and `FileIO`'s
/// atomic write, in one place, each as a small Swift function with Swift types, as swift-system's
/// `Internals/Syscalls.swift` does. Platform differences (Linux `st_mtim`, Darwin
/// `st_mtimespec`) are settled here and nowhere else.
package enum Syscalls {
    /// What `stat` says about a file, in Swift types.
    package struct FileStatus: Sendable, Equatable {
        /// What kind of file it is.
        package enum Kind: Sendable { case regular, directory, symbolicLink, other }

        package var kind: Kind
        package var size: Int
        /// Last content change, nanoseconds since 1970-01-01 UTC.
        package var modifiedNanoseconds: Int64
        /// Last status change (any write, chmod, chown), nanoseconds since 1970-01-01 UTC.
        package var changedNanoseconds: Int64
        package var device: UInt64
        package var inode: UInt64
        /// Permission bits (`st_mode & 0o7777`).
        package var permissions: UInt32

        init(_ st: stat) {
            switch st.st_mode & S_IFMT {
            case S_IFREG: kind = .regular
            case S_IFDIR: kind = .directory
            case S_IFLNK: kind = .symbolicLink
            default: kind = .other
            }
            size = Int(st.st_size)
            #if os(Linux)
                let (m, c) = (st.st_mtim, st.st_ctim)
            #else
                let (m, c) = (st.st_mtimespec, st.st_ctimespec)
            #endif
            modifiedNanoseconds = Int64(m.tv_sec) * 1_000_000_000 + Int64(m.tv_nsec)
            changedNanoseconds = Int64(c.tv_sec) * 1_000_000_000 + Int64(c.tv_nsec)
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            permissions = UInt32(st.st_mode) & 0o7777
        }
    }

    /// The file at `path`, following symbolic links (`stat`), or of the link itself (`lstat`);
    /// nil when it cannot be statted (`lastError` says why).
    package static func status(_ path: String, followingLinks: Bool = true) -> FileStatus? {
        var st = stat()
        let rc = followingLinks ? stat(path, &st) : lstat(path, &st)
        return rc == 0 ? FileStatus(st) : nil
    }

    /// The names in a folder, "." and ".." left out, in no particular order (`opendir`, `readdir`,
    /// `closedir`); nil when it cannot be read (`lastError` says why).
    package static func directoryEntries(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes a file (`unlink`); false when it could not.
    package static func remove(_ path: String) -> Bool { unlink(path) == 0 }

    /// Whether `pattern` (shell glob: `*`, `?`, `[...]`) matches `text` (`fnmatch`, no flags).
    package static func globMatches(_ pattern: String, _ text: String) -> Bool { fnmatch(pattern, text, 0) == 0 }

    /// Whether this process may read `path` (`access(R_OK)`).
    package static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// An environment variable (`getenv`); nil when unset.
    package static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Seconds since 1970-01-01 UTC (`time`).
    package static func now() -> Int64 { Int64(time(nil)) }

    /// The message of the last failed call's `errno` (`strerror`).
    package static var lastError: String { String(cString: strerror(errno)) }
}
