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

// Content of line i after its indentation and an optional "- " (a list item's first key); `col` is where it starts.
std::string_view item_content(const ScriptLines& lines, std::size_t i, std::size_t& col) {
    std::string_view t = lines.trimmed(i);
    col = lines.indent(i);
    if (t.size() >= 2 && t[0] == '-' && (t[1] == ' ' || t[1] == '\t')) {
        std::size_t k = 1;
        while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
        col += k;
        t.remove_prefix(k);
    }
    return t;
}

// One item of a `containers:` list starting at line j (its dash at column `dash`); `next` is the line after it.
Container read_container_item(const ScriptLines& lines, std::size_t j, std::size_t dash, std::size_t& next) {
    Container c;
    c.first = j;
    std::size_t kc;
    std::string_view first = item_content(lines, j, kc);
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
    next = k;
    return c;
}

// Every item of every `containers:` list: items at one dash column >= the key's column.
std::vector<Container> find_containers(const ScriptLines& lines) {
    std::vector<Container> containers;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::size_t col;
        if (lines.blank_or_comment(i) || !is_block_key(item_content(lines, i, col), "containers")) continue;
        std::size_t j = i + 1;
        while (j < lines.size() && lines.blank_or_comment(j)) ++j;
        if (j >= lines.size() || lines.trimmed(j).front() != '-' || lines.indent(j) < col) continue;
        const std::size_t dash = lines.indent(j);
        while (j < lines.size()) {
            if (lines.blank_or_comment(j)) { ++j; continue; }
            if (lines.indent(j) != dash || lines.trimmed(j).front() != '-') break;
            containers.push_back(read_container_item(lines, j, dash, j));
        }
        i = j - 1;
    }
    return containers;
}

// What a container's own keys and commands say.
struct ContainerFacts {
    std::size_t env_line, image_line, launch_line;   // lines.size() when absent
    bool inline_env = false;   // `env: [...]` in flow style
    bool trains = false;       // its image or command is a PyTorch job
    bool torchrun = false;     // its command starts torchrun
};

ContainerFacts read_container(const ScriptLines& lines, const Container& c, bool training_kind) {
    ContainerFacts f{lines.size(), lines.size(), lines.size()};
    f.trains = training_kind;
    for (std::size_t n = c.first; n < c.end; ++n) {
        if (lines.blank_or_comment(n)) continue;
        std::size_t col;
        std::string_view t = item_content(lines, n, col);
        const std::string_view code = strip_yaml_comment(lines[n]);
        if (col == c.key_col) {
            if (is_block_key(t, "env")) f.env_line = n;
            else if (has_key(t, "env")) f.inline_env = true;
            if (has_key(t, "image")) {
                f.image_line = n;
                if (code.find("torch") != std::string_view::npos) f.trains = true;
            }
        }
        for (std::string_view w : {"torchrun", "torch.distributed", "python", "deepspeed", "accelerate"})
            if (code.find(w) != std::string_view::npos) {
                f.trains = true;
                if (f.launch_line == lines.size()) f.launch_line = n;
            }
        if (code.find("torchrun") != std::string_view::npos || code.find("torch.distributed.run") != std::string_view::npos)
            f.torchrun = true;
    }
    return f;
}

// "container NAME" from the item's `name:` key, else "container".
std::string container_name(const ScriptLines& lines, const Container& c) {
    for (std::size_t n = c.first; n < c.end; ++n) {
        std::size_t col;
        std::string_view t = item_content(lines, n, col);
        if (col != c.key_col || !has_key(t, "name")) continue;
        std::string_view v = rtrim(strip_yaml_comment(t.substr(5)));
        while (!v.empty() && (v.front() == ' ' || v.front() == '"' || v.front() == '\'')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == '"' || v.back() == '\'')) v.remove_suffix(1);
        if (!v.empty()) return "container " + std::string(v);
        break;
    }
    return "container";
}

// The edit that sets the variable (and its pre-2.2 name) in the container's `env:` list, creating the list after
// `image:` (where readers look for the container's settings), else after the item's first line, when it has none.
Insertion env_edit(const ScriptLines& lines, const Container& c, const ContainerFacts& f, bool old_name_too) {
    auto item = [&](std::size_t dash_col, std::string_view var) {
        const std::string pad(dash_col, ' ');
        return pad + "- name: " + std::string(var) + "\n" + pad + "  value: \"1\"\n";
    };
    std::string prefix;
    if (f.env_line != lines.size()) {
        std::size_t n = f.env_line + 1;
        while (n < c.end && lines.blank_or_comment(n)) ++n;
        std::size_t dash_col = c.key_col + 2;
        if (n < c.end && lines.trimmed(n).front() == '-' && lines.indent(n) >= c.key_col) dash_col = lines.indent(n);
        std::string add = item(dash_col, kAsyncErrorHandlingVar);
        if (old_name_too) add += item(dash_col, kAsyncErrorHandlingOldVar);
        const std::size_t at = lines.after(f.env_line, prefix);
        return {at, prefix + add};
    }
    std::string add = std::string(c.key_col, ' ') + "env:\n" + item(c.key_col + 2, kAsyncErrorHandlingVar);
    if (old_name_too) add += item(c.key_col + 2, kAsyncErrorHandlingOldVar);
    const std::size_t after_line = f.image_line != lines.size() ? f.image_line : c.first;
    const std::size_t at = lines.after(after_line, prefix);
    return {at, prefix + add};
}

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
    bool all_torchrun = true;   // every flagged container starts torchrun (decides the wording)
    for (const Container& c : find_containers(lines)) {
        const ContainerFacts f = read_container(lines, c, training_kind);
        if (!f.trains) continue;
        out.applies = true;
        if (f.inline_env) continue;   // `env: [...]` in flow style: not rewritten by line insertion
        out.sites.push_back({f.launch_line != lines.size() ? f.launch_line : c.first, container_name(lines, c)});
        all_torchrun = all_torchrun && f.torchrun;
        out.edits.push_back(env_edit(lines, c, f, old_name_too));
    }
    facts.torchrun = LaunchFacts::Torchrun::unknown;
    facts.launch = out.sites.size() > 1 ? "these containers" : "this container";
    out.fix_title = "Add " + std::string(kAsyncErrorHandlingVar) + "=1 to the env of " +
                    (out.sites.size() == 1 ? out.sites.front().launcher : std::to_string(out.sites.size()) + " containers");
    if (all_torchrun && !out.sites.empty()) facts.torchrun = LaunchFacts::Torchrun::yes;
}

}  // namespace denpex::server
