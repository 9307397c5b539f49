// `denpex history`: list the incidents saved with `diagnose --save`, and print one of them again.
//
// Contract.
//   denpex history [list] [--json] [-n N]   newest first; N at most (bounded parser); --json: an array
//   denpex history show ID [--json]         the saved report (text), or its JSON contract; ID may be any
//                                           unique prefix of an incident id
// Exit codes: 0 done (an empty history included), 1 no incident has that id, 2 usage error (one line on
// stderr; an ambiguous id prefix too). A corrupt incident is listed as corrupt with a warning on stderr; it
// never stops the listing.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace denpex::cli {

const char* history_usage();

int history_command(const std::vector<std::string>& args, const std::string& dir, std::ostream& out, std::ostream& err);

}  // namespace denpex::cli
