// Partial models among `denpex diagnose`'s paths (engine/partial_model.hpp).
//
// Contract. A path named on the command line is a partial when it is a regular file whose first bytes are the
// partial's magic (`{"format":"denpex-partial"`); anything else stays a log path for expand_inputs. Files inside
// named directories are never taken as partials (a log directory's *.json files are not read at all).
// `load_partials` reads and decodes every partial with the knowledge the diagnosis uses; the first refusal is
// returned as one line naming the file (a usage error: exit 2), so a verdict never silently leaves a node out.
// Partials are merged in the order of their first input's path (as expand_inputs sorts a directory's files),
// ties kept in command-line order: `diagnose partials/*` gives the verdict of `diagnose LOGDIR` when each node
// scanned its own subdirectory of LOGDIR, whatever order the shell lists the partials in.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/partial_model.hpp"
#include "engine/timeline.hpp"

namespace denpex::cli {

struct SplitPaths {
    std::vector<std::string> partials, logs;
};

SplitPaths split_partial_paths(const std::vector<std::string>& paths);

// Decoded Timelines in merge order, or the first refusal ("PATH: why").
struct LoadedPartials {
    std::vector<Timeline> timelines;
    std::optional<std::string> error;
};

LoadedPartials load_partials(const std::vector<std::string>& paths, const PartialCodec& codec);

}  // namespace denpex::cli
