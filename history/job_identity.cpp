#include "history/job_identity.hpp"

#include <filesystem>

#include "engine/path_hints.hpp"

namespace denpex {
namespace {

namespace fs = std::filesystem;

bool is_stream(const std::string& name) { return name.empty() || name == "-" || name.front() == '<'; }

// The longest directory both paths lie in (paths already absolute and normal).
fs::path common_dir(const fs::path& a, const fs::path& b) {
    fs::path out;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end() && ib != b.end() && *ia == *ib; ++ia, ++ib) out /= *ia;
    return out;
}

}  // namespace

std::string job_identity(const Report& report, const std::string& cwd) {
    for (const auto& input : report.inputs)
        if (const auto hints = path_hints(input); hints.slurm_job) return "slurm job " + std::to_string(*hints.slurm_job);
    std::optional<fs::path> dir;
    for (const auto& input : report.inputs) {
        if (is_stream(input)) continue;
        fs::path p = fs::path(input).is_absolute() ? fs::path(input) : fs::path(cwd) / input;
        p = p.lexically_normal().parent_path();
        dir = dir ? common_dir(*dir, p) : p;
    }
    if (!dir || dir->empty()) return "";
    return "logs in " + dir->string();
}

}  // namespace denpex
