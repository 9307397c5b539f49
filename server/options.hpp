// `denpex serve` command-line options.
//
// Contract. `parse_serve_options(args)` fills ServeOptions or returns the usage error as one sentence. Clients
// add `--stdio` and `--clientProcessId=N` (vscode-languageclient does): both are accepted; the first is
// ignored (stdio is the only transport), the second makes the server exit when that process dies. Numbers
// are strict decimal within the stated ranges: a typo is an error at startup, not a surprise later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/secret_mask.hpp"
#include "server/log.hpp"

namespace denpex::server {

struct ServeOptions {
    std::optional<long> client_pid;
    LogLevel log_level = LogLevel::info;
    std::vector<std::string> knowledge_dirs;
    bool builtin_knowledge = true;
    unsigned threads = 0;                                   // 0: from the hardware (2..8)
    std::size_t max_message_bytes = std::size_t{256} << 20;
    unsigned debounce_ms = 300;                             // log documents re-diagnosed after typing stops
    std::uint64_t progress_threshold = std::uint64_t{4} << 20;   // work-done progress above this many bytes
    unsigned parent_poll_ms = 1000;
    MaskOptions mask;                                       // --no-mask, --mask-hosts: what answers may show
    bool save_history = false;                              // --save-history: denpex/diagnose results saved
    std::optional<std::string> history_dir;                 // --history-dir; else the XDG default
    bool help = false;
};

std::optional<std::string> parse_serve_options(const std::vector<std::string>& args, ServeOptions& out);
const char* serve_usage();

}  // namespace denpex::server
