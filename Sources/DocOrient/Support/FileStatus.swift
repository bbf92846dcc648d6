import SystemPackage

/// What `stat` says about a file, in Swift types: swift-system's `Stat` reduced to what docorient
/// compares and keeps (a journal's file facts, the walker's loop detection, the mode a rewritten
/// file keeps). swift-system settles the platforms' field names (Linux `st_mtim`, Darwin
/// `st_mtimespec`).
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

    /// The file at `path`, following symbolic links (`stat`), or of the link itself (`lstat`).
    package init(_ path: String, followingLinks: Bool = true) throws(Errno) {
        self.init(try FilePath(path).stat(followTargetSymlink: followingLinks))
    }

    /// The open file `file` (`fstat`).
    package init(_ file: FileDescriptor) throws(Errno) {
        self.init(try file.stat())
    }

    private init(_ st: Stat) {
        switch st.type {
        case .regular: kind = .regular
        case .directory: kind = .directory
        case .symbolicLink: kind = .symbolicLink
        default: kind = .other
        }
        size = Int(st.size)
        let (m, c) = (st.st_mtim, st.st_ctim)
        modifiedNanoseconds = Int64(m.tv_sec) * 1_000_000_000 + Int64(m.tv_nsec)
        changedNanoseconds = Int64(c.tv_sec) * 1_000_000_000 + Int64(c.tv_nsec)
        device = UInt64(st.deviceID.rawValue)
        inode = UInt64(st.inode.rawValue)
        permissions = UInt32(st.mode.rawValue) & 0o7777
        owner = UInt32(st.userID.rawValue)
        group = UInt32(st.groupID.rawValue)
    }
}
