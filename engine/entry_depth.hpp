// Entry depth: what an on-call engineer asks of a failure entry beyond what it is and how to fix it in general.
//
//   discriminator          is it hardware, software, configuration or environment, and the one observation that
//                          tells those apart (the same Xid on a second node vs the same line after a driver update);
//   cheapest_confirmation  the single fastest check, with its shell command where one exists;
//   fingerprint            what to alert on in a running job, as RE2 and as POSIX ERE for `grep -E`;
//   stack_fixes            the exact argument, config key or env var per training stack (HF Trainer's ddp_timeout,
//                          Megatron's --distributed-timeout-minutes, ...), with a snippet and its upstream source.
//
// Contract. `parse_entry_depth` reads the four fields from an entry's JSON and reports every schema problem
// through `problem` (with the field's path); fields that are absent stay empty (nullopt). When present they are
// validated for every entry, built-in or a team's: the enums, non-empty texts, the RE2 fingerprint compiles, the
// grep fingerprint uses only POSIX ERE (see `non_posix_construct`), each snippet contains its `names` verbatim,
// each fix's `source` is one of the entry's `sources`. Whether the fields are required is not decided here:
// built-in entries must have all four (`EntryDepth::missing`, enforced by tests/unit/knowledge_test.cpp); a
// team's may omit them, and the surfaces then leave them out.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace re2 { class RE2; }

namespace denpex {

// Which kind of cause an entry's failure is. Order is the schema's.
enum class CauseKind { hardware, software, configuration, environment };
std::string_view to_string(CauseKind kind);
std::optional<CauseKind> parse_cause_kind(std::string_view text);

// The training stacks a fix can be written for. Values are the schema's names ("hf-trainer").
enum class Stack { pytorch, torchrun, hf_trainer, accelerate, deepspeed, megatron, lightning, vllm, ray };
std::string_view to_string(Stack stack);
std::optional<Stack> parse_stack(std::string_view text);
// A person's name for the stack ("Hugging Face Trainer"), for headings.
std::string_view display_name(Stack stack);
// Every stack, in schema order.
const std::vector<Stack>& all_stacks();

struct Discriminator {
    CauseKind kind = CauseKind::software;
    std::string tells_apart;
};

struct Confirmation {
    std::string text;
    std::string command;   // empty when the check is not a command
};

struct Fingerprint {
    std::string re2;
    std::string grep;                          // POSIX ERE, for `grep -E`
    std::shared_ptr<const re2::RE2> regex;     // `re2`, compiled once at load time
};

struct StackFix {
    Stack stack = Stack::pytorch;
    std::string names;      // the exact argument / config key / env var (ddp_timeout)
    std::string snippet;    // contains `names` verbatim
    std::string versions;   // empty when it applies to every version of the stack
    std::string source;     // where upstream defines `names`; one of the entry's sources
};

struct EntryDepth {
    std::optional<Discriminator> discriminator;
    std::optional<Confirmation> cheapest_confirmation;
    std::optional<Fingerprint> fingerprint;
    // Present but empty: the failure has no stack-specific knob. Absent (nullopt): not written yet.
    std::optional<std::vector<StackFix>> stack_fixes;

    // The schema names of the fields this entry lacks ("discriminator", ...), in schema order.
    std::vector<std::string> missing() const;
    // The fixes for `stack`, in the entry's order.
    std::vector<const StackFix*> fixes_for(Stack stack) const;
    // Every stack fix, those for `first` leading in that order (the stacks a job's logs show), then the rest in the
    // entry's order.
    std::vector<const StackFix*> ordered_for(const std::vector<Stack>& first) const;
};

// Reads the depth fields of the entry object `entry_json`. `sources` are the entry's own sources.
void parse_entry_depth(const nlohmann::json& entry_json, const std::vector<std::string>& sources, EntryDepth& out,
                       const std::function<void(const std::string&)>& problem);

// The first construct of `ere` that POSIX ERE (and so a portable `grep -E`) lacks or reads differently from RE2:
// Perl classes (\d \s \w \b ...), back-references, `(?` groups and flags, lazy or possessive quantifiers, a
// backslash inside a bracket expression (literal in POSIX, an escape in RE2). nullopt when there is none.
std::optional<std::string> non_posix_construct(std::string_view ere);

}  // namespace denpex
