import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// libc's rename, named apart from the Swift function that calls it.
#if canImport(Glibc)
    private func libcRename(_ from: String, _ to: String) -> Int32 { Glibc.rename(from, to) }
#elseif canImport(Darwin)
    private func libcRename(_ from: String, _ to: String) -> Int32 { Darwin.rename(from, to) }
#endif

/// The libc calls docorient makes that swift-system (1.8) has no public API for, in one place,
/// each as a small Swift function with Swift types, as swift-system's `Internals/Syscalls.swift`
/// does. Opening, reading, writing, closing and `stat` go through swift-system itself
/// (`FileDescriptor`, `Stat`: see `FileIO` and `FileStatus`), and failures are its `Errno`.
package enum Syscalls {
    /// The errno the last failed call set (swift-system's own `Errno.current` is internal).
    private static var lastErrno: Errno { Errno(rawValue: errno) }

    /// The names in a folder, "." and ".." left out, in no particular order (`opendir`, `readdir`,
    /// `closedir`; swift-system reads directories only internally).
    package static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard let dir = opendir(path) else { throw lastErrno }
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

    /// Removes a file (`unlink`; swift-system has no public unlink).
    package static func remove(_ path: String) throws(Errno) {
        guard unlink(path) == 0 else { throw lastErrno }
    }

    /// Whether `pattern` (shell glob: `*`, `?`, `[...]`) matches `text` (`fnmatch`, no flags; not a
    /// system call, and not in swift-system).
    package static func globMatches(_ pattern: String, _ text: String) -> Bool { fnmatch(pattern, text, 0) == 0 }

    /// Whether this process may read `path` (`access(R_OK)`, which asks with the real user's
    /// permissions; swift-system has no `access`).
    package static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// The running program's path (`readlink("/proc/self/exe")`; swift-system has no `readlink`);
    /// nil where /proc is not mounted.
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An environment variable (`getenv`; swift-system's is internal); nil when unset.
    package static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Seconds since 1970-01-01 UTC (`time`; not in swift-system).
    package static func now() -> Int64 { Int64(time(nil)) }

    /// `path` with every symbolic link and "." or ".." resolved (`realpath`; swift-system's
    /// `FilePath` only normalises lexically, without asking the file system); nil when it does
    /// not resolve.
    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Renames `from` to `to`, replacing `to` atomically (`rename`; swift-system has no rename).
    package static func rename(_ from: String, to: String) throws(Errno) {
        guard libcRename(from, to) == 0 else { throw lastErrno }
    }

    /// Creates a new file named `prefix` followed by six random characters, mode 0600, open for
    /// writing (`mkstemp`; swift-system creates temporary files only internally): the open file
    /// (the caller closes it) and its path.
    package static func makeTemporary(prefix: String) throws(Errno) -> (file: FileDescriptor, path: String) {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw lastErrno }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (FileDescriptor(rawValue: fd), path)
    }

    /// Sets the permission bits of an open file (`fchmod`; swift-system has no chmod).
    package static func setPermissions(_ file: FileDescriptor, _ permissions: UInt32) throws(Errno) {
        guard fchmod(file.rawValue, mode_t(permissions)) == 0 else { throw lastErrno }
    }

    /// Sets the owner and group of an open file (`fchown`; swift-system has no chown); only root
    /// may give a file away.
    package static func setOwner(_ file: FileDescriptor, _ owner: UInt32, group: UInt32) throws(Errno) {
        guard fchown(file.rawValue, owner, group) == 0 else { throw lastErrno }
    }

    /// Flushes an open file's data and metadata to the disk (`fsync`; swift-system has no fsync).
    package static func sync(_ file: FileDescriptor) throws(Errno) {
        guard fsync(file.rawValue) == 0 else { throw lastErrno }
    }
}
