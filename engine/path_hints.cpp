// Path hints: what a log file's name and directories say about who wrote it.
//
// Launchers and people name per-process logs after the process: torchrun's `--log-dir` writes
// `<run>/attempt_<n>/<local_rank>/stderr.log`, scripts write `rank_3.log` or `node1.log`, Slurm writes
// `slurm-<job>[_<task>].out`. These hints matter when the lines themselves carry no prefix. They are only
// hints, so the rule is to trust a number only when a keyword names it (`rank`, `node`, `attempt_`,
// `slurm-`): digits elsewhere (dates, job ids, `excerpt2_...`) are never read as ranks, and a bare
// `<hostname>.log` is not taken as a host because nothing distinguishes it from `train.log`.
//
// Where names are looked at: the file's stem (the name without its log-ish extensions) first, then the
// directory holding it (`logs/rank_3/stdout.log`), then, in the torchrun layout, the node directory above
// `attempt_<n>` (`node1/attempt_0/3/stderr.log`). A field found nearer the file wins.
//
// No I/O, RE2 only, and every pattern runs on one path component, so the cost is linear in the path.
#include "engine/path_hints.hpp"

#include <re2/re2.h>

#include "engine/re2_captures.hpp"

#include <array>
#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace denpex {
namespace {

RE2::Options pattern_options() { return latin1_pattern_options(); }



// Matches the whole of `text` (FULL) or finds the leftmost match in it (UNANCHORED).
template <std::size_t N>
bool match(const RE2& re, std::string_view text, RE2::Anchor anchor, std::array<re2::StringPiece, N>& caps) {
    const re2::StringPiece piece(text.data(), text.size());
    return re.Match(piece, 0, piece.size(), anchor, caps.data(), static_cast<int>(N));
}

bool is_separator(char c) { return c == '/' || c == '\\'; }   // Windows paths come from the editor

// One path component and where it starts in the path (node_key is a prefix of the original string).
struct Component {
    std::string_view name;
    std::size_t offset = 0;
};

std::vector<Component> split(std::string_view path) {
    std::vector<Component> parts;
    std::size_t i = 0;
    while (i < path.size()) {
        while (i < path.size() && is_separator(path[i])) ++i;
        const std::size_t start = i;
        while (i < path.size() && !is_separator(path[i])) ++i;
        if (i > start) parts.push_back({path.substr(start, i - start), start});
    }
    return parts;
}

// `rank_3.log.1` -> `rank_3`. Only extensions that say "this is a log" (and rotation numbers) are removed, so
// that dots inside a host name (`host-a.example.com.log`) survive.
std::string_view stem(std::string_view name) {
    static const RE2 re(R"((?i)(.+?)(?:\.(?:log|txt|out|err|stdout|stderr|json|gz|\d{1,3}))+)", pattern_options());
    std::array<re2::StringPiece, 2> c;
    return match(re, name, RE2::ANCHOR_BOTH, c) ? view(c[1]) : name;
}

// The keyword patterns, applied to a stem or a directory name. Each keyword must start the name or follow a
// separator and its number must end the name or be followed by one, so `crank3`, `ranks2` or `node_xxx1`
// do not count. `local_rank_3` is a local rank and `machine_rank1` / `node_rank1` (torchrun's --node_rank,
// detectron2's --machine-rank) a node, not a rank: all are one pattern so the longer wins.
// With `whole`, the keyword must be the entire name: used for directories, whose names often carry a
// case or experiment label (`exception-rank1/combined.log` is not rank 1's log; `rank_3/stdout.log` is).
void name_hints(std::string_view name, PathHints& hints, bool whole = false) {
    const auto anchor = whole ? RE2::ANCHOR_BOTH : RE2::UNANCHORED;
    static const RE2 rank_re(R"((?i)(?:^|[_.-])(?:(local[_-]?)|(?:node|machine|group)[_-]?)?rank[_-]?(\d+)(?:$|[_.-]))",
                             pattern_options());
    static const RE2 node_rank_re(R"((?i)(?:^|[_.-])(?:node|machine|group)[_-]?rank[_-]?(\d+)(?:$|[_.-]))",
                                  pattern_options());
    static const RE2 node_re(R"((?i)(?:^|[_.-])node[_-]?(\d+)(?:$|[_.-]))", pattern_options());
    static const RE2 host_re(R"((?i)host[-_]([A-Za-z0-9][A-Za-z0-9.-]*))", pattern_options());

    std::array<re2::StringPiece, 3> c;
    std::array<re2::StringPiece, 2> d;
    if (match(node_rank_re, name, anchor, d)) fill(hints.node, to_number<int>(view(d[1])));
    else if (match(rank_re, name, anchor, c)) fill(present(c[1]) ? hints.local_rank : hints.rank, to_number<int>(view(c[2])));
    // "worker" names a rank in some setups and a node in others (pdsh_worker1.log, k8s `...-worker-0` pods),
    // so it is no hint at all.
    if (match(node_re, name, anchor, d)) fill(hints.node, to_number<int>(view(d[1])));
    if (!hints.host && match(host_re, name, RE2::ANCHOR_BOTH, d)) hints.host = std::string(view(d[1]));
}

// Slurm's default output names: `slurm-%j.out` and, for array jobs, `slurm-%A_%a.out`.
void slurm_hints(std::string_view file_stem, PathHints& hints) {
    static const RE2 re(R"(slurm-(\d+)(?:_(\d+))?)", pattern_options());
    std::array<re2::StringPiece, 3> c;
    if (!match(re, file_stem, RE2::ANCHOR_BOTH, c)) return;
    hints.slurm_job = to_number<long>(view(c[1]));
    if (present(c[2])) hints.slurm_array_task = to_number<int>(view(c[2]));
}

}  // namespace

PathHints path_hints(std::string_view path) {
    PathHints hints;
    const std::vector<Component> parts = split(path);
    if (parts.empty()) return hints;
    const std::string_view file = parts.back().name;

    // torchrun --log-dir: <node dir>/attempt_<n>/<local_rank>/<file>. The node dir is unique per agent (it
    // holds the run id and a random suffix), which is what makes it a node key.
    std::optional<std::string_view> node_dir;
    if (parts.size() >= 3) {
        static const RE2 attempt_re(R"(attempt_(\d+))", pattern_options());
        std::array<re2::StringPiece, 2> c;
        const Component& attempt = parts[parts.size() - 3];
        const auto local = to_number<int>(parts[parts.size() - 2].name);
        if (local && match(attempt_re, attempt.name, RE2::ANCHOR_BOTH, c)) {
            if (const auto n = to_number<int>(view(c[1]))) {
                hints.attempt = n;
                hints.local_rank = local;
                std::string_view key = path.substr(0, attempt.offset);
                while (!key.empty() && is_separator(key.back())) key.remove_suffix(1);
                // `attempt_0/3/x.log` relative to the current directory, or right under the root.
                hints.node_key = !key.empty() ? std::string(key) : (is_separator(path.front()) ? "/" : ".");
                if (parts.size() >= 4) node_dir = parts[parts.size() - 4].name;
            }
        }
    }

    const std::string_view file_stem = stem(file);
    slurm_hints(file_stem, hints);
    name_hints(file_stem, hints);
    if (!hints.attempt && parts.size() >= 2) name_hints(parts[parts.size() - 2].name, hints, /*whole=*/true);
    if (node_dir) name_hints(*node_dir, hints);
    return hints;
}

}  // namespace denpex
