#include "engine/entry_depth.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <nlohmann/json.hpp>
#include <re2/re2.h>

namespace denpex {
namespace {

using nlohmann::json;
using Problem = std::function<void(const std::string&)>;

constexpr std::array<std::pair<CauseKind, std::string_view>, 4> kKinds = {{
    {CauseKind::hardware, "hardware"},
    {CauseKind::software, "software"},
    {CauseKind::configuration, "configuration"},
    {CauseKind::environment, "environment"},
}};

struct StackName {
    Stack stack;
    std::string_view id, display;
};
constexpr std::array<StackName, 9> kStacks = {{
    {Stack::pytorch, "pytorch", "PyTorch"},
    {Stack::torchrun, "torchrun", "torchrun"},
    {Stack::hf_trainer, "hf-trainer", "Hugging Face Trainer"},
    {Stack::accelerate, "accelerate", "Accelerate"},
    {Stack::deepspeed, "deepspeed", "DeepSpeed"},
    {Stack::megatron, "megatron", "Megatron-LM"},
    {Stack::lightning, "lightning", "PyTorch Lightning"},
    {Stack::vllm, "vllm", "vLLM"},
    {Stack::ray, "ray", "Ray"},
}};

// A string member: "" when absent; a problem when present but not a string, or when required and empty.
std::string text_field(const json& obj, const char* key, const std::string& where, bool required, const Problem& problem) {
    auto it = obj.find(key);
    if (it == obj.end()) {
        if (required) problem(where + ": missing \"" + key + "\"");
        return {};
    }
    if (!it->is_string()) {
        problem(where + ": \"" + key + "\" must be a string");
        return {};
    }
    std::string v = it->get<std::string>();
    if (required && v.empty()) problem(where + ": \"" + key + "\" must not be empty");
    return v;
}

// The object member `key`, or nullptr when absent (a problem when present but not an object).
const json* object_field(const json& j, const char* key, const Problem& problem) {
    auto it = j.find(key);
    if (it == j.end()) return nullptr;
    if (!it->is_object()) {
        problem(std::string("\"") + key + "\" must be an object");
        return nullptr;
    }
    return &*it;
}

std::optional<Discriminator> parse_discriminator(const json& j, const Problem& problem) {
    const json* d = object_field(j, "discriminator", problem);
    if (!d) return std::nullopt;
    Discriminator out;
    const std::string kind = text_field(*d, "kind", "discriminator", true, problem);
    if (auto k = parse_cause_kind(kind)) out.kind = *k;
    else if (!kind.empty())
        problem("discriminator: \"kind\" must be \"hardware\", \"software\", \"configuration\" or \"environment\", not \"" +
                kind + "\"");
    out.tells_apart = text_field(*d, "tells_apart", "discriminator", true, problem);
    return out;
}

std::optional<Confirmation> parse_confirmation(const json& j, const Problem& problem) {
    const json* c = object_field(j, "cheapest_confirmation", problem);
    if (!c) return std::nullopt;
    Confirmation out;
    out.text = text_field(*c, "text", "cheapest_confirmation", true, problem);
    out.command = text_field(*c, "command", "cheapest_confirmation", false, problem);
    return out;
}

std::optional<Fingerprint> parse_fingerprint(const json& j, const Problem& problem) {
    const json* f = object_field(j, "fingerprint", problem);
    if (!f) return std::nullopt;
    Fingerprint out;
    out.re2 = text_field(*f, "re2", "fingerprint", true, problem);
    out.grep = text_field(*f, "grep", "fingerprint", true, problem);
    if (!out.re2.empty()) {
        RE2::Options opts;
        opts.set_log_errors(false);
        opts.set_max_mem(8 << 20);
        auto re = std::make_shared<RE2>(out.re2, opts);
        if (!re->ok()) problem("fingerprint: \"re2\" does not compile: " + re->error());
        else out.regex = std::move(re);
    }
    if (auto why = non_posix_construct(out.grep)) problem("fingerprint: \"grep\" is not POSIX ERE: " + *why);
    return out;
}

std::optional<std::vector<StackFix>> parse_stack_fixes(const json& j, const std::vector<std::string>& sources,
                                                       const Problem& problem) {
    auto it = j.find("stack_fixes");
    if (it == j.end()) return std::nullopt;
    std::vector<StackFix> out;
    if (!it->is_array()) {
        problem("\"stack_fixes\" must be an array");
        return out;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json& f = (*it)[i];
        const std::string where = "stack_fixes[" + std::to_string(i) + "]";
        if (!f.is_object()) {
            problem(where + " must be an object");
            continue;
        }
        StackFix fix;
        const std::string stack = text_field(f, "stack", where, true, problem);
        if (auto s = parse_stack(stack)) fix.stack = *s;
        else if (!stack.empty()) problem(where + ": unknown stack \"" + stack + "\"");
        fix.names = text_field(f, "names", where, true, problem);
        fix.snippet = text_field(f, "snippet", where, true, problem);
        fix.versions = text_field(f, "versions", where, false, problem);
        fix.source = text_field(f, "source", where, true, problem);
        // The snippet is what a user pastes: it must carry the knob the fix is about, spelled as upstream does.
        if (!fix.names.empty() && !fix.snippet.empty() && fix.snippet.find(fix.names) == std::string::npos)
            problem(where + ": \"snippet\" does not contain \"names\" (" + fix.names + ") verbatim");
        // The source is cited where the entry cites everything, so `kb show` and the export list it once.
        if (!fix.source.empty() && std::find(sources.begin(), sources.end(), fix.source) == sources.end())
            problem(where + ": \"source\" is not one of the entry's \"sources\": " + fix.source);
        out.push_back(std::move(fix));
    }
    return out;
}

// The end of the bracket expression that opens at `open` ('['), or npos. "[]a]" and "[^]a]" hold a literal ']'.
std::size_t bracket_end(std::string_view ere, std::size_t open) {
    std::size_t i = open + 1;
    if (i < ere.size() && ere[i] == '^') ++i;
    if (i < ere.size() && ere[i] == ']') ++i;
    for (; i < ere.size(); ++i) {
        if (ere[i] == '[' && i + 1 < ere.size() && (ere[i + 1] == ':' || ere[i + 1] == '.' || ere[i + 1] == '=')) {
            const char close[] = {ere[i + 1], ']', '\0'};
            const std::size_t end = ere.find(close, i + 2);
            if (end == std::string_view::npos) return std::string_view::npos;
            i = end + 1;
            continue;
        }
        if (ere[i] == ']') return i;
    }
    return std::string_view::npos;
}

}  // namespace

std::string_view to_string(CauseKind kind) {
    for (const auto& [k, name] : kKinds)
        if (k == kind) return name;
    return "software";
}

std::optional<CauseKind> parse_cause_kind(std::string_view text) {
    for (const auto& [k, name] : kKinds)
        if (name == text) return k;
    return std::nullopt;
}

std::string_view to_string(Stack stack) {
    for (const auto& s : kStacks)
        if (s.stack == stack) return s.id;
    return "pytorch";
}

std::optional<Stack> parse_stack(std::string_view text) {
    for (const auto& s : kStacks)
        if (s.id == text) return s.stack;
    return std::nullopt;
}

std::string_view display_name(Stack stack) {
    for (const auto& s : kStacks)
        if (s.stack == stack) return s.display;
    return "PyTorch";
}

const std::vector<Stack>& all_stacks() {
    static const std::vector<Stack> v = [] {
        std::vector<Stack> out;
        for (const auto& s : kStacks) out.push_back(s.stack);
        return out;
    }();
    return v;
}

std::vector<std::string> EntryDepth::missing() const {
    std::vector<std::string> out;
    if (!discriminator) out.emplace_back("discriminator");
    if (!cheapest_confirmation) out.emplace_back("cheapest_confirmation");
    if (!fingerprint) out.emplace_back("fingerprint");
    if (!stack_fixes) out.emplace_back("stack_fixes");
    return out;
}

std::vector<const StackFix*> EntryDepth::fixes_for(Stack stack) const {
    std::vector<const StackFix*> out;
    if (stack_fixes)
        for (const auto& f : *stack_fixes)
            if (f.stack == stack) out.push_back(&f);
    return out;
}

std::vector<const StackFix*> EntryDepth::ordered_for(const std::vector<Stack>& first) const {
    std::vector<const StackFix*> out;
    for (Stack s : first)
        for (const StackFix* f : fixes_for(s))
            if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    if (stack_fixes)
        for (const auto& f : *stack_fixes)
            if (std::find(out.begin(), out.end(), &f) == out.end()) out.push_back(&f);
    return out;
}

void parse_entry_depth(const nlohmann::json& j, const std::vector<std::string>& sources, EntryDepth& out,
                       const std::function<void(const std::string&)>& problem) {
    out.discriminator = parse_discriminator(j, problem);
    out.cheapest_confirmation = parse_confirmation(j, problem);
    out.fingerprint = parse_fingerprint(j, problem);
    out.stack_fixes = parse_stack_fixes(j, sources, problem);
}

std::optional<std::string> non_posix_construct(std::string_view ere) {
    auto at = [&](std::size_t i, std::size_t n) { return "\"" + std::string(ere.substr(i, n)) + "\" at byte " + std::to_string(i); };
    bool after_atom = false;   // the previous token can take a quantifier
    for (std::size_t i = 0; i < ere.size(); ++i) {
        const char c = ere[i];
        if (c == '\\') {
            if (i + 1 >= ere.size()) return "a trailing backslash";
            const char n = ere[i + 1];
            // POSIX leaves `\` before an ordinary character undefined; GNU grep and RE2 read letters and digits
            // differently (\d, \s, \w, \b, \1, \p{..}), so only escaped punctuation is portable.
            if ((n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z') || (n >= '0' && n <= '9'))
                return at(i, 2) + " (use a bracket expression such as [0-9] or [[:space:]])";
            ++i;
            after_atom = true;
            continue;
        }
        if (c == '[') {
            const std::size_t end = bracket_end(ere, i);
            if (end == std::string_view::npos) return "an unclosed bracket expression at byte " + std::to_string(i);
            // Inside brackets a backslash is a literal in POSIX and an escape in RE2: the two would differ.
            for (std::size_t k = i + 1; k < end; ++k)
                if (ere[k] == '\\') return "a backslash inside the bracket expression at byte " + std::to_string(i);
            i = end;
            after_atom = true;
            continue;
        }
        if (c == '(' && i + 1 < ere.size() && ere[i + 1] == '?') return at(i, 2) + " (a Perl group or flag)";
        const bool quantifier = c == '*' || c == '+' || c == '?' || c == '}';
        if (quantifier && !after_atom && c != '}') return at(i, 1) + " (a quantifier with nothing to repeat)";
        if (quantifier && i + 1 < ere.size() && (ere[i + 1] == '?' || ere[i + 1] == '+'))
            return at(i, 2) + " (a lazy or possessive quantifier)";
        after_atom = !(c == '(' || c == '|' || c == '^' || c == '{');
        if (c == '{') {   // an interval: skip its digits and comma so they are not read as atoms
            const std::size_t close = ere.find('}', i);
            if (close == std::string_view::npos) return "an unclosed interval at byte " + std::to_string(i);
            i = close - 1;
        }
    }
    return std::nullopt;
}

}  // namespace denpex
