// Kubernetes / Kubeflow YAML (Pod, Job, PyTorchJob...): an `env:` entry in every training container.
//
// Line-based on purpose: a YAML library would drop comments and formatting, and the edit must insert lines
// into the user's file exactly as written. The block structure needed here (a `containers:` list, each
// item's keys, its `env:` list) follows from indentation alone.
#include <algorithm>

#include "server/launch_scripts/async_error_handling.hpp"
#include "server/launch_scripts/script_lines.hpp"

namespace denpex::server {
namespace {

std::string_view strip_yaml_comment(std::string_view s) {
    char quote = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
            return s.substr(0, i);
        }
    }
    return s;
}

std::string_view rtrim(std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// "key:" with nothing (but a comment) after it, on a line whose content starts at the line's indentation or
// after "- ".
bool is_block_key(std::string_view content, std::string_view key) {
    content = rtrim(strip_yaml_comment(content));
    return content.size() == key.size() + 1 && content.substr(0, key.size()) == key && content.back() == ':';
}

bool has_key(std::string_view content, std::string_view key) {
    return content.size() > key.size() && content.substr(0, key.size()) == key && content[key.size()] == ':';
}

struct Container {
    std::size_t first = 0, end = 0;   // lines [first, end)
    std::size_t key_col = 0;
};

}  // namespace

void check_yaml(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts) {
    ScriptLines lines(text);
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (!lines.blank_or_comment(i) &&
            strip_yaml_comment(lines[i]).find(kAsyncErrorHandlingOldVar) != std::string_view::npos) {
            // Set somewhere (a container or a ConfigMap the spec uses): do not add it again anywhere.
            out.already_set = true;
        }
    const bool training_kind = text.find("kind: PyTorchJob") != std::string_view::npos ||
                               text.find("kind: ElasticJob") != std::string_view::npos;

    // Content of line i after its indentation and an optional "- " (a list item's first key).
    auto content = [&](std::size_t i, std::size_t& col) {
        std::string_view t = lines.trimmed(i);
        col = lines.indent(i);
        if (t.size() >= 2 && t[0] == '-' && (t[1] == ' ' || t[1] == '\t')) {
            std::size_t k = 1;
            while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
            col += k;
            t.remove_prefix(k);
        }
        return t;
    };

    std::vector<Container> containers;
    bool all_torchrun = true;   // every flagged container starts torchrun (decides the wording)
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::size_t col;
        if (lines.blank_or_comment(i) || !is_block_key(content(i, col), "containers")) continue;
        // The list: items at one dash column >= the key's column.
        std::size_t j = i + 1;
        while (j < lines.size() && lines.blank_or_comment(j)) ++j;
        if (j >= lines.size() || lines.trimmed(j).front() != '-' || lines.indent(j) < col) continue;
        const std::size_t dash = lines.indent(j);
        while (j < lines.size()) {
            if (lines.blank_or_comment(j)) { ++j; continue; }
            if (lines.indent(j) != dash || lines.trimmed(j).front() != '-') break;
            Container c;
            c.first = j;
            std::size_t kc;
            std::string_view first = content(j, kc);
            std::size_t k = j + 1;
            while (k < lines.size() && (lines.blank_or_comment(k) || lines.indent(k) > dash)) ++k;
            // Trailing blank/comment lines belong to what follows.
            std::size_t end = k;
            while (end > j + 1 && lines.blank_or_comment(end - 1)) --end;
            c.end = end;
            if (first.empty()) {   // "-" alone: the keys start on the next line
                std::size_t n = j + 1;
                while (n < end && lines.blank_or_comment(n)) ++n;
                kc = n < end ? lines.indent(n) : dash + 2;
            }
            c.key_col = kc;
            containers.push_back(c);
            j = k;
        }
        i = j - 1;
    }

    for (const Container& c : containers) {
        std::size_t env_line = lines.size(), image_line = lines.size(), launch_line = lines.size();
        bool inline_env = false, trains = training_kind, torchrun = false;
        for (std::size_t n = c.first; n < c.end; ++n) {
            if (lines.blank_or_comment(n)) continue;
            std::size_t col;
            std::string_view t = content(n, col);
            const std::string_view code = strip_yaml_comment(lines[n]);
            if (col == c.key_col) {
                if (is_block_key(t, "env")) env_line = n;
                else if (has_key(t, "env")) inline_env = true;
                if (has_key(t, "image")) {
                    image_line = n;
                    if (code.find("torch") != std::string_view::npos) trains = true;
                }
            }
            for (std::string_view w : {"torchrun", "torch.distributed", "python", "deepspeed", "accelerate"})
                if (code.find(w) != std::string_view::npos) {
                    trains = true;
                    if (launch_line == lines.size()) launch_line = n;
                }
            if (code.find("torchrun") != std::string_view::npos ||
                code.find("torch.distributed.run") != std::string_view::npos)
                torchrun = true;
        }
        if (!trains) continue;
        out.applies = true;
        if (inline_env) continue;   // `env: [...]` in flow style: not rewritten by line insertion
        std::string name = "container";
        for (std::size_t n = c.first; n < c.end; ++n) {
            std::size_t col;
            std::string_view t = content(n, col);
            if (col == c.key_col && has_key(t, "name")) {
                std::string_view v = rtrim(strip_yaml_comment(t.substr(5)));
                while (!v.empty() && (v.front() == ' ' || v.front() == '"' || v.front() == '\'')) v.remove_prefix(1);
                while (!v.empty() && (v.back() == '"' || v.back() == '\'')) v.remove_suffix(1);
                if (!v.empty()) name = "container " + std::string(v);
                break;
            }
        }
        out.sites.push_back({launch_line != lines.size() ? launch_line : c.first, name});
        all_torchrun = all_torchrun && torchrun;

        auto item = [&](std::size_t dash_col, std::string_view var) {
            const std::string pad(dash_col, ' ');
            return pad + "- name: " + std::string(var) + "\n" + pad + "  value: \"1\"\n";
        };
        std::string prefix;
        if (env_line != lines.size()) {
            std::size_t n = env_line + 1;
            while (n < c.end && lines.blank_or_comment(n)) ++n;
            std::size_t dash_col = c.key_col + 2;
            if (n < c.end && lines.trimmed(n).front() == '-' && lines.indent(n) >= c.key_col) dash_col = lines.indent(n);
            std::string add = item(dash_col, kAsyncErrorHandlingVar);
            if (old_name_too) add += item(dash_col, kAsyncErrorHandlingOldVar);
            const std::size_t at = lines.after(env_line, prefix);
            out.edits.push_back({at, prefix + add});
        } else {
            std::string add = std::string(c.key_col, ' ') + "env:\n" + item(c.key_col + 2, kAsyncErrorHandlingVar);
            if (old_name_too) add += item(c.key_col + 2, kAsyncErrorHandlingOldVar);
            // After `image:` (where readers look for the container's settings), else after the item's first line.
            const std::size_t after_line = image_line != lines.size() ? image_line : c.first;
            const std::size_t at = lines.after(after_line, prefix);
            out.edits.push_back({at, prefix + add});
        }
    }
    facts.torchrun = LaunchFacts::Torchrun::unknown;
    facts.launch = out.sites.size() > 1 ? "these containers" : "this container";
    out.fix_title = "Add " + std::string(kAsyncErrorHandlingVar) + "=1 to the env of " +
                    (out.sites.size() == 1 ? out.sites.front().launcher : std::to_string(out.sites.size()) + " containers");
    if (all_torchrun && !out.sites.empty()) facts.torchrun = LaunchFacts::Torchrun::yes;
}

}  // namespace denpex::server
