// `denpex kb export DIR`: the knowledge base as a static, offline HTML encyclopedia.
//
// Writes DIR/index.html (entries grouped by category with severity and a one-line summary),
// DIR/entries/<id>.html (one page per entry: everything the entry holds) and DIR/nccl-errors.html (a
// side-by-side comparison of the NCCL-related entries and of the environment variables that tell them apart).
// Pages are self-contained: inline CSS, no scripts, no external assets; every text from the knowledge base is
// HTML-escaped. DIR is created when missing; existing files of the same names are overwritten.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "engine/knowledge.hpp"

namespace denpex::cli {

// Returns the process exit code: 0 when every page was written, 1 when DIR cannot be created or a page cannot
// be written, 2 when `dir` is empty (a usage error); on failure one line on `err` says which.
int kb_export(const denpex::KnowledgeBase& kb, const std::string& dir, std::ostream& err);

// Exposed for tests: the text with &, <, >, " and ' replaced by entities.
std::string html_escape(std::string_view text);

}  // namespace denpex::cli
