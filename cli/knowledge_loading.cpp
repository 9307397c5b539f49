#include "cli/knowledge_loading.hpp"

#include <ostream>

namespace denpex::cli {

bool load_knowledge(const std::vector<std::string>& dirs, KnowledgeBase& kb, bool print_warnings, std::ostream& err) {
    std::vector<std::string> problems;
    kb = KnowledgeBase::load_embedded(problems);
    for (const auto& d : dirs) kb.add_directory(d, problems);
    for (const auto& p : problems) err << "denpex: knowledge: " << p << "\n";
    if (print_warnings)
        for (const auto& w : kb.warnings()) err << "denpex: warning: knowledge: " << w << "\n";
    return problems.empty();
}

}  // namespace denpex::cli
