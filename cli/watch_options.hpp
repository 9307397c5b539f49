// `denpex watch` command-line options, parsed from one table that also writes `watch --help`.
//
// Contract. `parse_watch_options` fills WatchCliOptions or returns the usage error as one sentence (the caller
// prints it on one line and exits 2). Options that take a value accept "--opt V" and "--opt=V"; "--" ends the
// options; "-" is stdin (at most once). At least one path is needed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/secret_mask.hpp"

namespace denpex::cli {

enum class WatchFormat { human, json_lines };

struct WatchCliOptions {
    WatchFormat format = WatchFormat::human;
    MaskOptions mask;
    std::vector<std::string> knowledge_dirs, paths;
    std::optional<std::string> exec;   // --exec CMD: run once per new initiating event
    bool from_end = false;             // --from-end: files' existing content is skipped, only new lines read
};

std::optional<std::string> parse_watch_options(const std::vector<std::string>& args, WatchCliOptions& out);

std::string watch_usage();

}  // namespace denpex::cli
