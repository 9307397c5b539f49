// `denpex kb`: the knowledge base as a terminal reference (list, show as markdown, patterns and
// fingerprints for other tools, export as HTML).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/knowledge.hpp"

namespace denpex::cli {

// Returns the process exit code (2 for usage errors, 1 for an unknown id).
int kb_command(const KnowledgeBase& kb, const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace denpex::cli
