#include "server/launch_scripts/async_error_handling.hpp"

#include <algorithm>

namespace denpex::server {

std::string async_error_handling_message(const LaunchFacts& facts, const std::optional<TorchPin>& pin) {
    const TorchEra era = torch_era(pin);
    const std::string v = pin ? "PyTorch " + pin->version + " (" + pin->source + ")" : std::string();
    const std::string old_name = " This version reads the old name NCCL_ASYNC_ERROR_HANDLING; the fix sets both.";
    std::string m = "TORCH_NCCL_ASYNC_ERROR_HANDLING is not set for " + facts.launch + ". ";

    if (facts.torchrun == LaunchFacts::Torchrun::yes) {
        m += "torchrun sets it to 1 (tear down on error) for its workers, so this launch fails fast; set it explicitly "
             "so the job still tears down when a rank fails if it is started without torchrun (srun, mpirun, "
             "mp.spawn), where ";
        if (era == TorchEra::before_2_0) m += v + " defaults to 0 and the surviving ranks hang until the time limit.";
        else if (era == TorchEra::v2_0_to_2_1) m += v + " defaults to 1.";
        else if (era == TorchEra::v2_2_or_later) m += v + " defaults to 3 (tear down without aborting communicators).";
        else m += "PyTorch before 2.0 defaults to 0 and the surviving ranks hang until the time limit.";
        if (era == TorchEra::before_2_0 || era == TorchEra::v2_0_to_2_1) m += old_name;
        return m;
    }

    const std::string unless = facts.torchrun == LaunchFacts::Torchrun::unknown
                                   ? "Unless a torchrun launch sets it (torchrun sets 1), "
                                   : "Without torchrun, ";
    switch (era) {
        case TorchEra::before_2_0:
            m += unless + v +
                 " defaults to 0: when one rank fails, the other ranks hang in their next collective until the job's "
                 "time limit instead of failing at the NCCL timeout. Set it to 1 so a failed rank tears the job down." +
                 old_name;
            break;
        case TorchEra::v2_0_to_2_1:
            m += unless + v +
                 " defaults to 1 (tear down on error); setting it keeps that behaviour on images older than 2.0, "
                 "where the default 0 leaves the surviving ranks hanging until the time limit." + old_name;
            break;
        case TorchEra::v2_2_or_later:
            m += unless + v +
                 " defaults to 3 (tear down without aborting the communicators); 1 also aborts the NCCL "
                 "communicators on error, and setting it states the intent for every launcher and version.";
            break;
        case TorchEra::unknown:
            m += unless +
                 "PyTorch before 2.0 defaults to 0: when one rank fails, the other ranks hang in their next "
                 "collective until the job's time limit instead of failing at the NCCL timeout. Set it to 1 so a "
                 "failed rank tears the job down on every version (PyTorch before 2.2 reads the name "
                 "NCCL_ASYNC_ERROR_HANDLING).";
            break;
    }
    return m;
}

// The variable is set, to 0: the watchdog's abort is off, so the survivors of a failed rank block until the limit.
void flag_disabled(const DisabledSetting& d, AsyncErrorHandlingCheck& out) {
    out.already_set = false;
    out.disabled = d;
    out.sites = {{d.line, d.name + "=0"}};
    out.edits = {{d.value_offset, "1", d.value_length}};
    out.message = d.name + "=0 turns off the NCCL watchdog's abort: when one rank fails, the other ranks block in "
                  "their next collective until the job's time limit instead of failing within the collective timeout. "
                  "Set it to 1 (PyTorch's default since 2.0 under torchrun, and since 2.2 everywhere).";
    out.fix_title = "Set " + d.name + "=1 (0 leaves the other ranks hanging when one fails)";
}

AsyncErrorHandlingCheck check_async_error_handling(DocumentKind kind, std::string_view text) {
    AsyncErrorHandlingCheck out;
    if (!is_launch_script(kind)) return out;
    out.torch = find_torch_pin(text);
    const TorchEra era = torch_era(out.torch);
    const bool old_name_too = era == TorchEra::before_2_0 || era == TorchEra::v2_0_to_2_1;
    LaunchFacts facts;
    switch (kind) {
        case DocumentKind::shell: check_shell(text, old_name_too, out, facts); break;
        case DocumentKind::python: check_python(text, old_name_too, out, facts); break;
        case DocumentKind::yaml: check_yaml(text, old_name_too, out, facts); break;
        case DocumentKind::dockerfile: check_dockerfile(text, old_name_too, out, facts); break;
        default: break;
    }
    if (auto off = find_disabled_async_error_handling(text)) {
        flag_disabled(*off, out);
        return out;
    }
    if (!out.applies || out.already_set) {
        out.sites.clear();
        out.edits.clear();
        return out;
    }
    std::sort(out.edits.begin(), out.edits.end(), [](const Insertion& a, const Insertion& b) { return a.offset < b.offset; });
    // Inserted lines end the way the file's lines do.
    const std::size_t nl = text.find('\n');
    if (nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r') {
        for (Insertion& e : out.edits) {
            std::string crlf;
            for (char c : e.text) {
                if (c == '\n') crlf += '\r';
                crlf += c;
            }
            e.text = std::move(crlf);
        }
    }
    out.message = async_error_handling_message(facts, out.torch);
    return out;
}

std::string apply_insertions(std::string_view text, const std::vector<Insertion>& edits) {
    std::vector<Insertion> sorted = edits;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Insertion& a, const Insertion& b) { return a.offset < b.offset; });
    std::string out;
    out.reserve(text.size() + 256);
    std::size_t at = 0;
    for (const Insertion& e : sorted) {
        const std::size_t off = std::min(e.offset, text.size());
        out.append(text.substr(at, off - at));
        out += e.text;
        at = std::min(off + e.replace, text.size());
    }
    out.append(text.substr(at));
    return out;
}

}  // namespace denpex::server
