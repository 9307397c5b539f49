// Python training scripts: set the variable with os.environ.setdefault before the statement that calls
// init_process_group (the process group reads it there), importing os when the module does not.
#include <algorithm>

#include "server/launch_scripts/async_error_handling.hpp"
#include "server/launch_scripts/script_lines.hpp"

namespace denpex::server {
namespace {

struct PyLine {
    std::string code;        // strings' contents and comments blanked (quotes kept)
    std::string no_comment;  // comments blanked, strings kept
    int depth_at_start = 0;  // open brackets when the line starts
    bool in_string_at_start = false;
    bool continued = false;  // ends with a backslash continuation
};

// One pass over the text with Python's lexical states: enough to tell code from strings and comments and to
// know where statements span several lines.
std::vector<PyLine> scan(const ScriptLines& lines) {
    std::vector<PyLine> out(lines.size());
    int depth = 0;
    char quote = 0;
    bool triple = false;
    for (std::size_t n = 0; n < lines.size(); ++n) {
        PyLine& pl = out[n];
        pl.depth_at_start = depth;
        pl.in_string_at_start = quote != 0;
        std::string_view s = lines[n];
        pl.code.assign(s.size(), ' ');
        pl.no_comment.assign(s.size(), ' ');
        for (std::size_t i = 0; i < s.size(); ++i) {
            const char c = s[i];
            if (quote) {
                pl.no_comment[i] = c;
                if (c == '\\' && i + 1 < s.size()) {
                    pl.no_comment[i + 1] = s[i + 1];
                    ++i;
                    continue;
                }
                if (c == quote && (!triple || s.substr(i, 3) == std::string(3, quote))) {
                    pl.code[i] = c;
                    if (triple) {
                        pl.code[i + 1] = pl.code[i + 2] = c;
                        pl.no_comment[i + 1] = pl.no_comment[i + 2] = c;
                        i += 2;
                    }
                    quote = 0;
                }
                continue;
            }
            if (c == '#') break;   // comment: the rest stays blank
            pl.code[i] = pl.no_comment[i] = c;
            if (c == '\'' || c == '"') {
                quote = c;
                triple = s.substr(i, 3) == std::string(3, c);
                if (triple) {
                    pl.code[i + 1] = pl.code[i + 2] = c;
                    pl.no_comment[i + 1] = pl.no_comment[i + 2] = c;
                    i += 2;
                }
            } else if (c == '(' || c == '[' || c == '{') {
                ++depth;
            } else if (c == ')' || c == ']' || c == '}') {
                depth = std::max(0, depth - 1);
            }
        }
        if (quote && !triple) quote = 0;   // an unterminated one-line string ends with its line
        std::string_view code = pl.code;
        while (!code.empty() && code.back() == ' ') code.remove_suffix(1);
        pl.continued = !quote && !code.empty() && code.back() == '\\';
    }
    return out;
}

std::string_view ltrim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
}

bool is_statement_start(const std::vector<PyLine>& py, std::size_t i) {
    return py[i].depth_at_start == 0 && !py[i].in_string_at_start && (i == 0 || !py[i - 1].continued);
}

std::size_t statement_start(const std::vector<PyLine>& py, std::size_t i) {
    while (i > 0 && !is_statement_start(py, i)) --i;
    return i;
}

std::size_t statement_end(const std::vector<PyLine>& py, std::size_t i) {
    while (i + 1 < py.size() && !is_statement_start(py, i + 1)) ++i;
    return i;
}

bool top_level_code(const ScriptLines& lines, const std::vector<PyLine>& py, std::size_t i) {
    return is_statement_start(py, i) && lines.indent(i) == 0 && !ltrim(py[i].code).empty();
}

bool imports_os(std::string_view code) {
    code = ltrim(code);
    if (code.rfind("import ", 0) != 0) return false;
    code.remove_prefix(7);
    while (!code.empty()) {
        std::size_t comma = code.find(',');
        std::string_view item = code.substr(0, comma);
        item = ltrim(item);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t' || item.back() == ';')) item.remove_suffix(1);
        const bool renamed = item.find(" as ") != std::string_view::npos;
        if (!renamed && (item == "os" || item.rfind("os.", 0) == 0)) return true;
        if (comma == std::string_view::npos) break;
        code.remove_prefix(comma + 1);
    }
    return false;
}

bool is_import(std::string_view code) {
    code = ltrim(code);
    return code.rfind("import ", 0) == 0 || code.rfind("from ", 0) == 0;
}

// Finds "name(" (spaces allowed before the parenthesis) as a call in masked code.
bool calls(std::string_view code, std::string_view name) {
    for (std::size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
        if (at > 0) {
            const char b = code[at - 1];
            if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_') continue;
        }
        std::size_t k = at + name.size();
        while (k < code.size() && code[k] == ' ') ++k;
        if (k < code.size() && code[k] == '(') return true;
    }
    return false;
}

}  // namespace

void check_python(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts) {
    ScriptLines lines(text);
    const std::vector<PyLine> py = scan(lines);

    std::size_t init = lines.size();
    std::string call;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (py[i].no_comment.find(kAsyncErrorHandlingOldVar) != std::string::npos) out.already_set = true;
        if (init == lines.size()) {
            if (calls(py[i].code, "init_process_group")) { init = i; call = "init_process_group"; }
            else if (calls(py[i].code, "init_distributed")) { init = i; call = "init_distributed"; }
        }
    }
    if (init == lines.size()) return;
    out.applies = true;
    if (out.already_set) return;

    facts.torchrun = LaunchFacts::Torchrun::unknown;
    facts.launch = call;
    out.sites.push_back({init, call});

    const std::size_t stmt = statement_start(py, init);
    const std::string indent(lines.indentation(stmt));
    std::string set = indent + "os.environ.setdefault(\"" + std::string(kAsyncErrorHandlingVar) + "\", \"1\")\n";
    if (old_name_too)
        set += indent + "os.environ.setdefault(\"" + std::string(kAsyncErrorHandlingOldVar) + "\", \"1\")\n";

    bool has_os = false;
    std::size_t last_import = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!top_level_code(lines, py, i)) continue;
        if (imports_os(py[i].code)) has_os = true;
        if (is_import(py[i].code) && i < stmt) last_import = i;
    }

    const std::size_t set_at = lines.start(stmt);
    if (has_os) {
        out.edits.push_back({set_at, set});
    } else {
        std::size_t import_at;
        std::string prefix;
        if (last_import != lines.size()) {
            import_at = lines.after(statement_end(py, last_import), prefix);
        } else {
            // No import before the call: put it after the module header (shebang, comments, docstring), or right
            // before the call's statement when that comes first.
            std::size_t i = 0;
            while (i < lines.size() && lines.blank_or_comment(i)) ++i;
            if (i < lines.size() && i < stmt) {
                const std::string_view c = ltrim(py[i].code);
                const bool docstring = !c.empty() && (c.front() == '"' || c.front() == '\'');
                if (docstring) i = statement_end(py, i) + 1;
            }
            if (i >= stmt) import_at = set_at;
            else import_at = lines.start(i);
        }
        if (import_at == set_at) {
            out.edits.push_back({set_at, "import os\n" + set});
        } else {
            out.edits.push_back({import_at, prefix + "import os\n"});
            out.edits.push_back({set_at, set});
        }
    }
    out.fix_title = "Set " + std::string(kAsyncErrorHandlingVar) + "=1 before " + call;
}

}  // namespace denpex::server
