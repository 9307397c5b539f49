// `denpex kb fingerprints [--format grep|re2|json]`: every entry's fingerprint, for monitoring systems that alert
// on a running job's logs. grep (the default) and re2: one line per entry, the id, a TAB, the pattern; json: an
// array of {"id", "title", "kind", "re2", "grep"}. Entries without a fingerprint (a team's may omit it) are left out.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/knowledge.hpp"

namespace denpex::cli {

// `args` are the words after `fingerprints`. Returns the exit code: 0, or 2 (one line on `err`) for a usage error.
int kb_fingerprints(const KnowledgeBase& kb, const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace denpex::cli
