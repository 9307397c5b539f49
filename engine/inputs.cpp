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

// Why a file is not text, from the first 8 KiB after any leading NULs (empty when it is text): a log truncated
// under its writer (logrotate's copytruncate) starts with a hole of NULs and is still a log; a core dump, a gzip
// or a UTF-16 file is not.
std::string not_text_reason(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return {};   // unreadable: the reader says why, on that input
    std::array<char, 8192> buf{};
    std::streamsize n = 0, start = 0;
    constexpr std::streamsize kMaxHole = 64 << 20;   // a hole larger than this is not worth reading past
    for (std::streamsize skipped = 0; skipped < kMaxHole;) {
        in.read(buf.data(), buf.size());
        n = in.gcount();
        if (n <= 0) return {};   // empty, or nothing but NULs: nothing misleading to read
        start = 0;
        while (start < n && buf[static_cast<std::size_t>(start)] == '\0') ++start;
        if (start < n) break;
        skipped += n;
    }
    if (start >= n) return {};
    const auto b0 = static_cast<unsigned char>(buf[static_cast<std::size_t>(start)]);
    const auto b1 = start + 1 < n ? static_cast<unsigned char>(buf[static_cast<std::size_t>(start) + 1]) : 0;
    if (start == 0 && ((b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)))
        return "UTF-16 text: convert it with iconv -f UTF-16 -t UTF-8";
    if (start > 0) {   // the sample starts at the first byte after the hole
        std::copy(buf.begin() + start, buf.begin() + n, buf.begin());
        n -= start;
        in.read(buf.data() + n, static_cast<std::streamsize>(buf.size()) - n);
        n += in.gcount();
    }
    // Long runs of NULs are holes (not counted either way); scattered NULs and other control bytes are the
    // structure of a binary.
    constexpr std::streamsize kHoleRun = 64;
    std::streamsize odd = 0, counted = 0, run = 0;
    auto end_run = [&] {
        if (run < kHoleRun) odd += run, counted += run;
        run = 0;
    };
    for (std::streamsize i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(buf[static_cast<std::size_t>(i)]);
        if (c == 0) {
            ++run;
            continue;
        }
        end_run();
        ++counted;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b) ++odd;
    }
    end_run();
    return odd * 10 < counted ? std::string() : "binary, not text";   // text has under 10% control bytes
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
            // Walked by hand so that a directory that cannot be read is listed, not silently passed over.
            std::vector<fs::path> pending{fs::path(arg)};
            while (!pending.empty()) {
                const fs::path dir = std::move(pending.back());
                pending.pop_back();
                std::vector<fs::directory_entry> entries;
                fs::directory_iterator it(dir, ec);
                for (; !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
                if (ec) {
                    out.skipped.push_back(dir.string() + " (cannot read this directory: " + ec.message() + ")");
                    ec.clear();
                }
                for (const fs::directory_entry& e : entries) {
                    std::error_code entry_ec;
                    // A symlink to a file is read; one to a directory is not walked (no loops).
                    const fs::file_status ls = e.symlink_status(entry_ec);
                    if (entry_ec) continue;
                    if (fs::is_directory(ls)) {
                        pending.push_back(e.path());
                        continue;
                    }
                    if (!fs::is_regular_file(fs::is_symlink(ls) ? e.status(entry_ec) : ls) || entry_ec) continue;
                    if (!log_like_name(e.path())) {
                        std::string ext = e.path().extension().string();
                        const bool packed = ext == ".gz" || ext == ".xz" || ext == ".zst" || ext == ".bz2";
                        out.skipped.push_back(e.path().string() + (packed ? " (compressed: decompress it and name the file)"
                                                                          : " (not a log's name)"));
                    } else if (auto why = not_text_reason(e.path()); !why.empty()) {
                        out.skipped.push_back(e.path().string() + " (" + why + ")");
                    } else {
                        found.push_back(e.path());
                    }
                }
            }
            std::sort(found.begin(), found.end());
            for (const auto& f : found) out.files.push_back({f.string(), f.string()});
            continue;
        }
        // A device (/dev/zero, /dev/urandom), a socket or a named FIFO never ends, or not when expected: only
        // stdin ("-") and process substitution (/dev/fd/N, `<(kubectl logs ...)`) are read as streams.
        if (!fs::is_regular_file(st)) {
            const bool substitution = arg.rfind("/dev/fd/", 0) == 0 || arg.rfind("/proc/self/fd/", 0) == 0;
            if (!(substitution && fs::is_fifo(st))) {
                out.skipped.push_back(arg + (fs::is_fifo(st) ? " (a FIFO, not a file: pipe it to stdin, denpex diagnose - < " + arg + ")"
                                                             : " (not a regular file)"));
                continue;
            }
            out.files.push_back({arg, arg});
            continue;
        }
        // Named, but a core dump or an archive: its strings would match signatures by chance.
        if (auto why = not_text_reason(arg); !why.empty()) {
            out.skipped.push_back(arg + " (" + why + ")");
            continue;
        }
        out.files.push_back({arg, arg});
    }
    return out;
}

}  // namespace denpex
