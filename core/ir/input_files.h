// The files a command reads (its script, a heuristics database, an import,
// params or plan file, a .npy): with the protection on, an OutputFile
// refuses to replace one of them, so a mistyped output path
// (`graph x.py -o x.py`, `inspect x.py --segment 0 --repro x.py`,
// `db export --db h.db --output h.db`) is an error that names the file,
// not the lost input. The CLI turns the protection on; the workbench, whose
// Save writes the script it opened, does not.
//
// Invariant: a file is the same file by device and inode, so a symlink or a
// hard link to an input is that input.
#pragma once

#include <string>
#include <string_view>

namespace fuserlab::ir {

//! From now on, OutputFile refuses the files this process has read.
void protectInputFiles();

//! Records that this process read the file at `path` as `what` ("script").
void noteInputFile(const std::string& path, std::string_view what);

//! A UserError when the protection is on and `path` is a file noted as an
//! input: "refusing to write 'x.py': it is the script this command reads".
void checkNotAnInputFile(const std::string& path);

}  // namespace fuserlab::ir
