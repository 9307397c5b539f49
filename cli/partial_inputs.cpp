#include "cli/partial_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace denpex::cli {
namespace {

namespace fs = std::filesystem;

// A partial holds a bounded model (KBs to MBs); a file past this is no partial denpex wrote.
constexpr std::uintmax_t kMaxPartialBytes = 1ull << 30;

bool starts_with_magic(const std::string& path) {
    std::error_code ec;
    if (path == "-" || !fs::is_regular_file(path, ec)) return false;
    std::ifstream in(path, std::ios::binary);
    std::string head(kPartialMagic.size(), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
    return looks_like_partial(head);
}

std::optional<std::string> read_file(const std::string& path, std::string& out) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) return ec.message();
    if (size > kMaxPartialBytes) return "larger than any partial model (" + std::to_string(size) + " bytes)";
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot be opened";
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return "read error";
    return std::nullopt;
}

}  // namespace

SplitPaths split_partial_paths(const std::vector<std::string>& paths) {
    SplitPaths out;
    for (const auto& p : paths) (starts_with_magic(p) ? out.partials : out.logs).push_back(p);
    return out;
}

LoadedPartials load_partials(const std::vector<std::string>& paths, const PartialCodec& codec) {
    LoadedPartials out;
    for (const auto& path : paths) {
        std::string text;
        if (auto problem = read_file(path, text)) {
            out.error = path + ": " + *problem;
            return out;
        }
        DecodedPartial d = codec.decode(text);
        if (!d.timeline) {
            out.error = path + ": partial model refused: " + d.error;
            return out;
        }
        out.timelines.push_back(std::move(*d.timeline));
    }
    // Stable: partials of machines that read the same paths (local disks) keep their command-line order.
    std::stable_sort(out.timelines.begin(), out.timelines.end(), [](const Timeline& a, const Timeline& b) {
        if (a.sources.empty() || b.sources.empty()) return !a.sources.empty() && b.sources.empty();
        return fs::path(a.sources.front()) < fs::path(b.sources.front());
    });
    return out;
}

}  // namespace denpex::cli
