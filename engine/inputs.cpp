#include "engine/inputs.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

namespace denpex {
namespace {

namespace fs = std::filesystem;

bool log_like_name(const fs::path& p) {
    std::string name = p.filename().string();
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name.empty() || name[0] == '.') return false;
    static const std::array<const char*, 8> kLogExt = {".log", ".out", ".err", ".txt", ".stderr", ".stdout", ".trace", ""};
    if (std::find(kLogExt.begin(), kLogExt.end(), ext) != kLogExt.end()) return true;
    // Rotated logs: train.log.1, node0.out.3
    if (!ext.empty() && std::all_of(ext.begin() + 1, ext.end(), [](unsigned char c) { return std::isdigit(c); }))
        return log_like_name(p.stem());
    return false;
}

bool text_like(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::array<char, 8192> buf{};
    in.read(buf.data(), buf.size());
    std::streamsize n = in.gcount();
    if (n <= 0) return true;
    std::streamsize odd = 0;
    for (std::streamsize i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(buf[static_cast<std::size_t>(i)]);
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b) ++odd;
    }
    return odd * 10 < n;   // under 10% control bytes
}

}  // namespace

ExpandedInputs expand_inputs(const std::vector<std::string>& args) {
    ExpandedInputs out;
    for (const std::string& arg : args) {
        if (arg == "-") {
            out.files.push_back({"-", "<stdin>"});
            continue;
        }
        std::error_code ec;
        fs::file_status st = fs::status(arg, ec);
        if (ec || !fs::exists(st)) {
            out.errors.push_back(arg + ": no such file or directory");
            continue;
        }
        if (fs::is_directory(st)) {
            std::vector<fs::path> found;
            for (auto it = fs::recursive_directory_iterator(arg, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
                if (!it->is_regular_file(ec)) continue;
                if (log_like_name(it->path()) && text_like(it->path())) found.push_back(it->path());
                else out.skipped.push_back(it->path().string());
            }
            if (ec) out.errors.push_back(arg + ": " + ec.message());
            std::sort(found.begin(), found.end());
            for (const auto& f : found) out.files.push_back({f.string(), f.string()});
            continue;
        }
        out.files.push_back({arg, arg});
    }
    return out;
}

}  // namespace denpex
