// Wording shared by the verdict's sentences: rank lists a person can read ("ranks 0-3 and 5"), quoted lists.
#pragma once

#include <string>
#include <vector>

namespace denpex {

// "0, 1 and 5", with runs of three or more written as "8-63" so a 64-rank job stays one readable line.
std::string join_ints(std::vector<int> v);
// "rank 5" / "ranks 0-3 and 5"
std::string ranks_phrase(const std::vector<int>& v);
// "'a', 'b'"
std::string quoted_list(const std::vector<std::string>& terms);

}  // namespace denpex
