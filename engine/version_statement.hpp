// VersionStatement: a log line that states the PyTorch version outright, which beats what message formats imply.
//
// Contract. `stated_torch_version(body)` returns (major, minor) for the few shapes tools print, and nothing for
// any other line (a substring test first; the pattern runs only on lines that contain a keyword):
//   torch.utils.collect_env     `PyTorch version: 2.3.0+cu121`
//   DeepSpeed's environment     `torch version .................... 2.1.0+cu121`
//   pip freeze / pip list       `torch==2.4.1`, `torch    2.4.1`
//   a script's own banner       `torch 2.5.1+cu124`, `torch.__version__ = 2.2.0`
// Only the first 1 KiB of a line is looked at; RE2 only.
#pragma once

#include <optional>
#include <string_view>

#include "engine/version_range.hpp"

namespace denpex {

std::optional<Version> stated_torch_version(std::string_view body);

}  // namespace denpex
