// Inputs: turning what the user named (files, directories, "-" for stdin) into log sources to read.
//
// Contract. A named file is read unless its first bytes are binary (a core dump, a gzip, UTF-16). A directory
// is walked recursively (symlinks not followed) in sorted order, and its files are read when they look like
// logs: a log-like name (`*.log`, `*.out`, `*.err`, `*.txt`, `stderr`, `stdout`, rotated `*.log.1`, no
// extension) and text-like first bytes (mostly printable after any leading hole of NULs; ANSI codes in
// moderation are fine). Files such as `*.json`, `*.py` or `*.yaml` inside a log directory are skipped: they
// are not logs. Every skipped file is listed with the reason, and so is every directory that cannot be read.
// Only regular files are read, besides stdin ("-") and process substitution (`<(cmd)`, a FIFO under /dev/fd/):
// a device (/dev/zero, /dev/urandom), a socket or a named FIFO is listed as skipped, never read forever.
// Missing paths are errors, reported with the path.
#pragma once

#include <string>
#include <vector>

namespace denpex {

struct InputFile {
    std::string path;      // "-" for stdin
    std::string display;   // as shown in evidence
};

struct ExpandedInputs {
    std::vector<InputFile> files;
    std::vector<std::string> errors;    // unusable arguments (missing, unreadable)
    std::vector<std::string> skipped;   // "path (reason)" for files not read
};

ExpandedInputs expand_inputs(const std::vector<std::string>& args);

}  // namespace denpex
