// Loading the knowledge a command works with: the built-in entries plus every --knowledge DIR.
//
// Contract. Problems with a team's entries (unreadable, broken JSON) are printed to `err` and make the result
// false: a silently ignored entry would be a wrong diagnosis later. Entries refused as unsafe (a taken or
// malformed id, a pattern too costly to match) are warnings: printed here with `print_warnings`, else left to
// the report's warnings.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "engine/knowledge.hpp"

namespace denpex::cli {

bool load_knowledge(const std::vector<std::string>& dirs, KnowledgeBase& kb, bool print_warnings, std::ostream& err);

}  // namespace denpex::cli
