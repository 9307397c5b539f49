// The setting that turns the watchdog's abort off: TORCH_NCCL_ASYNC_ERROR_HANDLING=0 in a launch script.
//
// Contract (pure). Every assignment of the variable in the file, in any of the forms the four kinds of launch script
// use (shell `export X=0` / `X=0 torchrun`, Python `os.environ["X"] = "0"` / `setdefault("X", "0")`, YAML
// `- name: X` with `value: "0"` on one of the next lines, Dockerfile `ENV X=0` / `ENV X 0`), outside comments,
// read in file order. The effective one is the last assignment of TORCH_NCCL_ASYNC_ERROR_HANDLING, or, when the
// file never sets that name, the last of the pre-2.2 NCCL_ASYNC_ERROR_HANDLING (PyTorch >= 2.2 reads the new name
// first). When the effective value is 0, the result names its line and the bytes of the value, so that a fix can
// replace just the digit: an earlier `=1` overridden by a later `=0` is found, a `=0` overridden by a later `=1`
// is not.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace denpex::server {

struct DisabledSetting {
    std::size_t line = 0;           // 0-based, "\n"-split
    std::size_t value_offset = 0;   // byte offset of the value in the text
    std::size_t value_length = 0;
    std::string name;               // which of the two names the effective assignment uses
};

std::optional<DisabledSetting> find_disabled_async_error_handling(std::string_view text);

}  // namespace denpex::server
