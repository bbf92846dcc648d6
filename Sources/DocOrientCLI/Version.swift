/// docorient's version: what `docorient --version` prints and the Debian package's version
/// (`Scripts/package-deb.sh` reads it from this line, so the two cannot disagree).
let docorientVersion = "0.1.0"
