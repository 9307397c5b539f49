// The TORCH_NCCL_ASYNC_ERROR_HANDLING check for launch scripts: pure functions from a script's text to a
// finding and the quick-fix that inserts the variable, in the form each kind of file needs.
//
// Contract. `check_async_error_handling(kind, text)` decides whether the file launches distributed PyTorch
// training and, if it does and the variable (or its pre-2.2 name NCCL_ASYNC_ERROR_HANDLING) is set nowhere,
// returns the launch line(s) to flag and the insertions that fix it:
//   shell (.sh, .sbatch, .slurm)  `export TORCH_NCCL_ASYNC_ERROR_HANDLING=1` on its own line, with the launch
//                                 line's indentation, before the first torchrun/deepspeed/accelerate launch
//                                 (else the python launch, else srun/mpirun);
//   Python                        `os.environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1")` before the
//                                 statement that calls init_process_group, with its indentation, plus
//                                 `import os` after the module's imports when os is not imported;
//   YAML (Kubernetes, PyTorchJob) an `env:` entry in every training container that lacks it;
//   Dockerfile                    `ENV TORCH_NCCL_ASYNC_ERROR_HANDLING=1` before the final stage's
//                                 CMD/ENTRYPOINT (after its FROM when there is none).
// Applying the insertions and checking again finds the variable set: the fix is never offered twice. When the
// file pins a PyTorch older than 2.2 the fix sets the old name as well, since those versions read only that.
// Commented-out settings do not count as set. Insertions are whole lines (CRLF in CRLF files), sorted.
// A file whose effective setting is 0 (see disabled_setting.hpp) gets instead a finding on that line, and a fix that
// replaces the 0 with 1: 0 is the setting under which the surviving ranks hang until the time limit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/launch_scripts/disabled_setting.hpp"
#include "server/launch_scripts/document_kind.hpp"
#include "server/launch_scripts/torch_version.hpp"

namespace denpex::server {

inline constexpr std::string_view kAsyncErrorHandlingVar = "TORCH_NCCL_ASYNC_ERROR_HANDLING";
inline constexpr std::string_view kAsyncErrorHandlingOldVar = "NCCL_ASYNC_ERROR_HANDLING";

struct Insertion {
    std::size_t offset = 0;   // byte offset in the text
    std::string text;
    std::size_t replace = 0;  // bytes at `offset` that `text` replaces (0: a pure insertion)
    bool operator==(const Insertion&) const = default;
};

struct LaunchSite {
    std::size_t line = 0;     // 0-based, "\n"-split
    std::string launcher;     // "torchrun", "srun", "python", "init_process_group", "container pytorch", "CMD"...
};

struct AsyncErrorHandlingCheck {
    bool applies = false;         // the file launches distributed training
    bool already_set = false;     // the variable is set: nothing to flag or fix
    std::vector<LaunchSite> sites;
    std::vector<Insertion> edits;
    std::string message;          // the Warning, version- and launcher-aware
    std::string fix_title;
    std::optional<TorchPin> torch;
    // The variable is set, to 0 (the effective, last assignment): the site is that line and the fix replaces the 0.
    std::optional<DisabledSetting> disabled;
};

AsyncErrorHandlingCheck check_async_error_handling(DocumentKind kind, std::string_view text);

// `text` with the insertions applied (for tests and for commands on files that are not open).
std::string apply_insertions(std::string_view text, const std::vector<Insertion>& edits);

// ---- per kind (one file each); they fill sites/edits/applies/already_set and the launcher facts ----------
struct LaunchFacts {
    enum class Torchrun { yes, no, unknown } torchrun = Torchrun::unknown;
    std::string launch;   // how the message names the launch: "this torchrun launch", "init_process_group"...
};
void check_shell(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts);
void check_python(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts);
void check_yaml(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts);
void check_dockerfile(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts);

// The Warning's wording for a launch (exposed for tests).
std::string async_error_handling_message(const LaunchFacts& facts, const std::optional<TorchPin>& pin);

}  // namespace denpex::server
