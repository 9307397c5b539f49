// What a document is, for the server: a log (diagnosed by the engine), a launch script of one of four kinds
// (checked for TORCH_NCCL_ASYNC_ERROR_HANDLING), or something else (hover only).
//
// Contract. The client's languageId wins when it names a kind ("log", "shellscript"/"sh"/"bash"/"zsh",
// "python", "yaml", "dockerfile"); otherwise the file name decides (`*.log`, `*.out`, `*.err`, `*.log.1`,
// `slurm-*.out` are logs; `*.sh`, `*.bash`, `*.sbatch`, `*.slurm` shell; `*.py` Python; `*.yaml`/`*.yml`;
// `Dockerfile`, `Dockerfile.*`, `*.dockerfile`, `Containerfile`); then a `#!` line (sh/bash/zsh/python).
// Editors send "plaintext" for `.sbatch` and `slurm-*.out`, which is why names come before giving up.
#pragma once

#include <string_view>

namespace denpex::server {

enum class DocumentKind { other, log, shell, python, yaml, dockerfile };

std::string_view to_string(DocumentKind kind);
DocumentKind classify_document(std::string_view uri, std::string_view language_id, std::string_view text);
inline bool is_launch_script(DocumentKind k) {
    return k == DocumentKind::shell || k == DocumentKind::python || k == DocumentKind::yaml ||
           k == DocumentKind::dockerfile;
}

}  // namespace denpex::server
