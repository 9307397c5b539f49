// Dockerfiles: `ENV` in the final stage, before the CMD/ENTRYPOINT that starts training (the variable then
// reaches every process the image runs, whatever launches it).
#include <cctype>

#include "server/launch_scripts/async_error_handling.hpp"
#include "server/launch_scripts/script_lines.hpp"

namespace denpex::server {
namespace {

struct Instruction {
    std::size_t first = 0, last = 0;
    std::string keyword;   // upper case
    std::string text;      // continuation lines joined
};

std::vector<Instruction> instructions(const ScriptLines& lines) {
    std::vector<Instruction> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines.blank_or_comment(i)) continue;
        Instruction ins;
        ins.first = i;
        ins.text = std::string(lines.trimmed(i));
        while (!ins.text.empty() && ins.text.back() == '\\' && i + 1 < lines.size()) {
            ins.text.pop_back();
            ++i;
            if (lines.blank_or_comment(i)) continue;   // comment lines inside a continuation are dropped
            ins.text += ' ';
            ins.text += lines.trimmed(i);
        }
        ins.last = i;
        for (char c : ins.text) {
            if (c == ' ' || c == '\t') break;
            ins.keyword += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        out.push_back(std::move(ins));
    }
    return out;
}

}  // namespace

void check_dockerfile(std::string_view text, bool old_name_too, AsyncErrorHandlingCheck& out, LaunchFacts& facts) {
    ScriptLines lines(text);
    const std::vector<Instruction> all = instructions(lines);
    std::size_t from = all.size();
    bool torch = false;
    for (std::size_t k = 0; k < all.size(); ++k) {
        const Instruction& ins = all[k];
        if (ins.keyword == "FROM") from = k;
        if (ins.text.find(kAsyncErrorHandlingOldVar) != std::string::npos) out.already_set = true;
        for (std::string_view w : {"torch", "deepspeed", "accelerate"})
            if (ins.text.find(w) != std::string::npos) torch = true;
    }
    if (from == all.size() || !torch) return;
    out.applies = true;
    if (out.already_set) return;

    const Instruction* launch = nullptr;
    for (std::size_t k = from + 1; k < all.size() && !launch; ++k)
        if (all[k].keyword == "CMD" || all[k].keyword == "ENTRYPOINT") launch = &all[k];

    std::string env = "ENV " + std::string(kAsyncErrorHandlingVar) + "=1";
    if (old_name_too) env += " " + std::string(kAsyncErrorHandlingOldVar) + "=1";
    env += "\n";
    if (launch) {
        out.sites.push_back({launch->first, launch->keyword});
        out.edits.push_back({lines.start(launch->first), env});
        out.fix_title = "Add ENV " + std::string(kAsyncErrorHandlingVar) + "=1 before " + launch->keyword;
        facts.torchrun = launch->text.find("torchrun") != std::string::npos ||
                                 launch->text.find("torch.distributed.run") != std::string::npos
                             ? LaunchFacts::Torchrun::yes
                             : LaunchFacts::Torchrun::unknown;
        facts.launch = "this image's " + launch->keyword;
    } else {
        std::string prefix;
        const std::size_t at = lines.after(all[from].last, prefix);
        out.sites.push_back({all[from].first, "FROM"});
        out.edits.push_back({at, prefix + env});
        out.fix_title = "Add ENV " + std::string(kAsyncErrorHandlingVar) + "=1 to the final stage";
        facts.torchrun = LaunchFacts::Torchrun::unknown;
        facts.launch = "this image";
    }
}

}  // namespace denpex::server
