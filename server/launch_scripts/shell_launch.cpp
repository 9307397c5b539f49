// Shell launch scripts (bash/sh, Slurm .sbatch/.slurm): find the training launch and export the variable
// before it.
#include <algorithm>

#include "server/launch_scripts/async_error_handling.hpp"
#include "server/launch_scripts/script_lines.hpp"

namespace denpex::server {
namespace {

struct Command {
    std::size_t first = 0, last = 0;   // physical lines
    std::string text;                  // the logical line (continuations joined)
};

struct Launch {
    int rank = 0;   // 3: torchrun/deepspeed/accelerate, 2: python script, 1: srun/mpirun alone, 0: none
    std::string launcher;
    bool torchrun = false;
    bool accelerate = false;
};

bool continues(std::string_view line) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty()) return false;
    if (line.back() == '\\') {
        std::size_t n = 0;
        for (auto it = line.rbegin(); it != line.rend() && *it == '\\'; ++it) ++n;
        return n % 2 == 1;
    }
    if (line.back() == '|') return true;                      // "a |" and "a ||"
    return line.size() >= 2 && line.substr(line.size() - 2) == "&&";
}

// The delimiter of a here-document the line opens ("<<EOF", "<<-'EOF'"), if any; `dash` for "<<-".
std::string heredoc_delimiter(std::string_view line, bool& dash) {
    for (std::size_t at = line.find("<<"); at != std::string_view::npos; at = line.find("<<", at + 2)) {
        if (at + 2 < line.size() && line[at + 2] == '<') { at += 1; continue; }   // "<<<" here-string
        std::size_t i = at + 2;
        dash = i < line.size() && line[i] == '-';
        if (dash) ++i;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        std::string word;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != ';' && line[i] != '|' &&
               line[i] != '&' && line[i] != '>' && line[i] != ')') {
            if (line[i] != '\'' && line[i] != '"' && line[i] != '\\') word += line[i];
            ++i;
        }
        if (!word.empty()) return word;
    }
    return {};
}

// Drops a trailing comment: '#' at the start of a word, outside quotes.
std::string_view strip_comment(std::string_view s) {
    char quote = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
            else if (c == '\\' && quote == '"') ++i;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '\\') {
            ++i;
        } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == ';')) {
            return s.substr(0, i);
        }
    }
    return s;
}

// Words and operators; quotes are removed from words (a quoted string stays one word).
std::vector<std::string> tokenize(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    bool in_word = false;
    char quote = 0;
    auto flush = [&] {
        if (in_word) out.push_back(cur);
        cur.clear();
        in_word = false;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
            else cur += c;
            continue;
        }
        if (c == '\'' || c == '"') { quote = c; in_word = true; continue; }
        if (c == '\\' && i + 1 < s.size()) { cur += s[++i]; in_word = true; continue; }
        if (c == ' ' || c == '\t') { flush(); continue; }
        if (c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`' || c == '{' || c == '}') {
            flush();
            out.push_back(std::string(1, c));
            continue;
        }
        cur += c;
        in_word = true;
    }
    flush();
    return out;
}

bool is_operator(const std::string& t) { return t.size() == 1 && std::string_view(";&|()`{}").find(t[0]) != std::string_view::npos; }

bool is_assignment(const std::string& t) {
    const std::size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    return std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::string basename(const std::string& t) {
    const std::size_t slash = t.rfind('/');
    return slash == std::string::npos ? t : t.substr(slash + 1);
}

bool is_python(const std::string& w) {
    if (w.rfind("python", 0) != 0) return false;
    return std::all_of(w.begin() + 6, w.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

// What the program `tokens[i]` (a command word) launches, looking at its arguments up to the next operator.
Launch classify_program(const std::vector<std::string>& tokens, std::size_t i) {
    Launch l;
    const std::string w = basename(tokens[i]);
    auto arg = [&](std::size_t k) -> const std::string* {
        return k < tokens.size() && !is_operator(tokens[k]) ? &tokens[k] : nullptr;
    };
    if (w == "torchrun") return {3, "torchrun", true, false};
    if (w == "deepspeed") return {3, "deepspeed", false, false};
    if (w == "accelerate") {
        if (const std::string* a = arg(i + 1); a && *a == "launch") return {3, "accelerate launch", false, true};
        return l;
    }
    if (is_python(w)) {
        for (std::size_t k = i + 1; const std::string* a = arg(k); ++k) {
            if (*a == "-c" || *a == "--version" || *a == "-V") return l;
            if (*a == "-m") {
                const std::string* mod = arg(k + 1);
                if (!mod) return l;
                if (*mod == "torch.distributed.run" || *mod == "torch.distributed.launch")
                    return {3, "python -m " + *mod, true, false};
                if (mod->rfind("deepspeed", 0) == 0) return {3, "deepspeed", false, false};
                if (mod->rfind("accelerate", 0) == 0) return {3, "accelerate launch", false, true};
                if (*mod == "pip" || *mod == "venv" || *mod == "ensurepip") return l;
                return {2, "python", false, false};
            }
            if (a->size() > 3 && a->substr(a->size() - 3) == ".py") return {2, "python", false, false};
        }
        return l;
    }
    if (w == "srun" || w == "mpirun" || w == "mpiexec") {
        // A wrapper: what it starts decides the kind; the wrapper names the launch.
        Launch inner;
        for (std::size_t k = i + 1; arg(k); ++k) {
            Launch c = classify_program(tokens, k);
            if (c.rank > inner.rank) inner = c;
        }
        if (inner.rank >= 2) {
            inner.launcher = w + " " + inner.launcher;
            return inner;
        }
        return {1, w, false, false};
    }
    return l;
}

Launch classify_command(std::string_view logical) {
    const std::vector<std::string> tokens = tokenize(strip_comment(logical));
    Launch best;
    bool at_start = true;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& t = tokens[i];
        if (is_operator(t)) { at_start = true; continue; }
        if (!at_start) continue;
        if (is_assignment(t)) continue;
        static const char* const kPrefixes[] = {"exec", "time", "nohup", "env", "sudo", "command", "builtin",
                                                "then", "do", "else", "elif", "if", "while", "until", "!", "stdbuf"};
        if (std::any_of(std::begin(kPrefixes), std::end(kPrefixes), [&](const char* p) { return t == p; })) continue;
        at_start = false;
        Launch l = classify_program(tokens, i);
        if (l.rank > best.rank) best = l;
    }
    return best;
}

bool is_case_pattern(std::string_view trimmed) {
    if (trimmed.empty() || trimmed.front() == '(' || trimmed.rfind("$(", 0) == 0) return false;
    const std::size_t paren = trimmed.find(')');
    if (paren == std::string_view::npos) return false;
    const std::string_view head = trimmed.substr(0, paren);
    return head.find_first_of(" \t(=") == std::string_view::npos;
}

}  // namespace

void check_shell(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts) {
    ScriptLines lines(text);
    std::vector<Command> commands;
    std::string heredoc;
    bool heredoc_dash = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!heredoc.empty()) {
            if ((heredoc_dash ? lines.trimmed(i) : lines[i]) == heredoc) heredoc.clear();
            continue;
        }
        if (lines.blank_or_comment(i)) continue;
        if (lines[i].find(kAsyncErrorHandlingOldVar) != std::string_view::npos &&
            strip_comment(lines[i]).find(kAsyncErrorHandlingOldVar) != std::string_view::npos)
            out.already_set = true;
        Command c;
        c.first = i;
        c.text = std::string(lines[i]);
        while (continues(lines[i]) && i + 1 < lines.size()) {
            ++i;
            if (lines[i].find(kAsyncErrorHandlingOldVar) != std::string_view::npos &&
                strip_comment(lines[i]).find(kAsyncErrorHandlingOldVar) != std::string_view::npos)
                out.already_set = true;
            c.text += ' ';
            c.text += lines[i];
        }
        c.last = i;
        heredoc = heredoc_delimiter(c.text, heredoc_dash);
        commands.push_back(std::move(c));
    }

    Launch best;
    const Command* where = nullptr;
    for (const Command& c : commands) {
        Launch l = classify_command(c.text);
        if (l.rank > best.rank) {
            best = l;
            where = &c;
        }
    }
    if (!where) return;
    auto mentions = [&](std::string_view w) { return text.find(w) != std::string_view::npos; };
    if (best.rank == 2) {
        out.applies = mentions("#SBATCH") || mentions("srun") || mentions("mpirun") || mentions("MASTER_ADDR") ||
                      mentions("WORLD_SIZE") || mentions("torch") || mentions("NCCL") || mentions("nproc") ||
                      mentions("nnodes");
    } else if (best.rank == 1) {
        out.applies = mentions("torch") || mentions("NCCL") || mentions(".py");
    } else {
        out.applies = true;
    }
    if (!out.applies || out.already_set) return;

    facts.torchrun = best.torchrun ? LaunchFacts::Torchrun::yes
                                   : best.accelerate ? LaunchFacts::Torchrun::unknown : LaunchFacts::Torchrun::no;
    facts.launch = "this " + best.launcher + " launch";
    out.sites.push_back({where->first, best.launcher});

    std::string line = "export " + std::string(kAsyncErrorHandlingVar) + "=1";
    if (old_name_too) line += " " + std::string(kAsyncErrorHandlingOldVar) + "=1";
    std::size_t at = where->first;
    std::string indent(lines.indentation(at));
    if (is_case_pattern(lines.trimmed(at))) {
        // Inside a `case` arm a new line before the pattern would break the syntax: export at the top instead,
        // after the shebang, #SBATCH header and leading comments.
        at = 0;
        while (at < lines.size() && lines.blank_or_comment(at)) ++at;
        indent.clear();
    }
    out.edits.push_back({lines.start(at), indent + line + "\n"});
    out.fix_title = "Export " + std::string(kAsyncErrorHandlingVar) + "=1 before the " + best.launcher + " line";
}

}  // namespace denpex::server
