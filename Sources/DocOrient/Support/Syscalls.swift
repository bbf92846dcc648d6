#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// libc's read, write and rename, named apart from the Swift methods that call them.
#if canImport(Glibc)
    private func libcRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Glibc.read(fd, buffer, count)
    }
    private func libcWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        Glibc.write(fd, buffer, count)
    }
    private func libcRename(_ from: String, _ to: String) -> Int32 { Glibc.rename(from, to) }
#elseif canImport(Darwin)
    private func libcRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Darwin.read(fd, buffer, count)
    }
    private func libcWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        Darwin.write(fd, buffer, count)
    }
    private func libcRename(_ from: String, _ to: String) -> Int32 { Darwin.rename(from, to) }
#endif

/// The libc calls docorient makes outside the C libraries' wrappers (`Interop/`), in one place,
/// each as a small Swift function with Swift types, as swift-system's `Internals/Syscalls.swift`
/// does. Platform differences (Linux `st_mtim`, Darwin
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
        /// Owner and group ids.
        package var owner: UInt32
        package var group: UInt32

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
            owner = UInt32(st.st_uid)
            group = UInt32(st.st_gid)
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

    /// The running program's path (`readlink("/proc/self/exe")`); nil where /proc is not mounted.
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An environment variable (`getenv`); nil when unset.
    package static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Seconds since 1970-01-01 UTC (`time`).
    package static func now() -> Int64 { Int64(time(nil)) }

    /// The message of the last failed call's `errno` (`strerror`).
    package static var lastError: String { String(cString: strerror(errno)) }

    /// Whether anything exists at `path` (`access(F_OK)`).
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// `path` with every symbolic link and "." or ".." resolved (`realpath`); nil when it does not resolve.
    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Renames `from` to `to`, replacing `to` atomically (`rename`); false when it could not.
    package static func rename(_ from: String, to: String) -> Bool { libcRename(from, to) == 0 }

    /// An open file, closed when it goes out of scope (`close`).
    package struct FileDescriptor: ~Copyable {
        private let raw: Int32
        /// The path it was opened or created at.
        package let path: String

        private init(_ raw: Int32, path: String) {
            self.raw = raw
            self.path = path
        }

        deinit { close(raw) }

        /// Opens `path` for reading (`open`, `O_RDONLY | O_NONBLOCK | O_CLOEXEC`: opening a FIFO
        /// does not wait for a writer); nil when it cannot.
        package static func openForReading(_ path: String) -> FileDescriptor? {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            return fd >= 0 ? FileDescriptor(fd, path: path) : nil
        }

        /// Opens a directory, to flush its entries with `sync` (`O_RDONLY | O_DIRECTORY | O_CLOEXEC`).
        package static func openDirectory(_ path: String) -> FileDescriptor? {
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            return fd >= 0 ? FileDescriptor(fd, path: path) : nil
        }

        /// Creates a new file named `prefix` followed by six random characters, mode 0600, open
        /// for writing (`mkstemp`); nil when it cannot.
        package static func makeTemporary(prefix: String) -> FileDescriptor? {
            var template = Array((prefix + "XXXXXX").utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { return nil }
            let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return FileDescriptor(fd, path: path)
        }

        /// What `fstat` says about the open file.
        package func status() -> FileStatus? {
            var st = stat()
            return fstat(raw, &st) == 0 ? FileStatus(st) : nil
        }

        /// Reads into `buffer` until it is full or the file ends (`read`, repeated; interrupted
        /// and would-block reads retried): the number of bytes read, nil on an error.
        package func read(into buffer: inout [UInt8]) -> Int? {
            var done = 0
            while done < buffer.count {
                let n = buffer.withUnsafeMutableBytes { libcRead(raw, $0.baseAddress! + done, $0.count - done) }
                if n < 0, errno == EINTR || errno == EAGAIN { continue }
                guard n >= 0 else { return nil }
                if n == 0 { break }
                done += n
            }
            return done
        }

        /// Writes all of `bytes` (`write`, repeated; interrupted writes retried); false on an error.
        package func write(_ bytes: [UInt8]) -> Bool {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { libcWrite(raw, $0.baseAddress! + done, $0.count - done) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }

        /// Sets the permission bits (`fchmod`); false when not permitted.
        @discardableResult
        package func setPermissions(_ permissions: UInt32) -> Bool { fchmod(raw, mode_t(permissions)) == 0 }

        /// Sets the owner and group (`fchown`); false when not permitted (only root may give a file away).
        @discardableResult
        package func setOwner(_ owner: UInt32, group: UInt32) -> Bool { fchown(raw, owner, group) == 0 }

        /// Flushes the file's data and metadata to the disk (`fsync`); false on an error.
        package func sync() -> Bool { fsync(raw) == 0 }
    }
}
