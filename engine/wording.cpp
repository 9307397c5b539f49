#include "engine/wording.hpp"

#include <algorithm>

namespace denpex {

std::string join_ints(std::vector<int> v) {
    std::sort(v.begin(), v.end());
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
        if (j - i >= 2) parts.push_back(std::to_string(v[i]) + "-" + std::to_string(v[j]));
        else
            for (std::size_t k = i; k <= j; ++k) parts.push_back(std::to_string(v[k]));
        i = j + 1;
    }
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) s += (i + 1 == parts.size()) ? " and " : ", ";
        s += parts[i];
    }
    return s;
}

std::string ranks_phrase(const std::vector<int>& v) {
    return (v.size() == 1 ? "rank " : "ranks ") + join_ints(v);
}

std::string quoted_list(const std::vector<std::string>& terms) {
    std::string s;
    for (std::size_t i = 0; i < terms.size(); ++i) s += (i ? ", '" : "'") + terms[i] + "'";
    return s;
}

}  // namespace denpex
