// `denpex diagnose` command-line options: parsed from one table that also writes `diagnose --help`, so the
// help lists exactly the options the command takes.
//
// Contract. `parse_diagnose_options` fills DiagnoseCliOptions or returns the usage error as one sentence.
// Options that take a value accept "--opt V" and "--opt=V"; "--" ends the options; "-" is stdin, a path.
// --json and --sarif exclude each other; --save-raw implies --save.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/color.hpp"
#include "engine/secret_mask.hpp"

namespace denpex::cli {

enum class OutputFormat { text, json, sarif };

struct DiagnoseCliOptions {
    OutputFormat format = OutputFormat::text;
    MaskOptions mask;
    std::vector<std::string> knowledge_dirs, paths;
    ColorMode color = ColorMode::automatic;
    bool quiet = false;      // no progress line
    bool save = false;       // save the incident in the local history
    bool save_raw = false;   // ... with the (masked) log text of its evidence
};

std::optional<std::string> parse_diagnose_options(const std::vector<std::string>& args, DiagnoseCliOptions& out);

std::string diagnose_usage();

}  // namespace denpex::cli
