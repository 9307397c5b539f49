#include "server/launch_scripts/torch_version.hpp"

#include <iterator>
#include <memory>
#include <vector>

#include <re2/re2.h>

#include "engine/bounded_number.hpp"

namespace denpex::server {
namespace {

struct Rule {
    const char* pattern;   // captures: whole spec, then major, minor (and an operator for pip)
    enum Kind { pip, conda, image, ngc, module } kind;
};

// RE2 syntax; compiled once. `(?m)` so ^ anchors at lines.
const Rule kRules[] = {
    {R"((\btorch\s*(==|~=|>=|===)\s*v?([0-9]+)\.([0-9]+)[0-9.]*))", Rule::pip},
    {R"((\bpytorch\s*==?\s*([0-9]+)\.([0-9]+)[0-9.]*))", Rule::conda},
    {R"((\bpytorch/pytorch:([0-9]+)\.([0-9]+)[0-9.]*))", Rule::image},
    {R"((nvcr\.io/nvidia/pytorch:([0-9]{2})\.([0-9]{2})))", Rule::ngc},
    {R"((module\s+load\s+\S*(?:py)?torch/([0-9]+)\.([0-9]+)[0-9.]*))", Rule::module},
};

const RE2& compiled(std::size_t i) {
    static const auto* res = [] {
        auto* v = new std::vector<std::unique_ptr<RE2>>();   // never freed: used until exit, from any thread
        for (const Rule& r : kRules) v->push_back(std::make_unique<RE2>(r.pattern));
        return v;
    }();
    return *(*res)[i];
}

std::optional<TorchPin> match_rule(std::size_t index, std::string_view text) {
    const Rule& rule = kRules[index];
    const RE2& re = compiled(index);
    if (!re.ok()) return std::nullopt;
    std::string whole, op, a, b;
    re2::StringPiece input(text.data(), text.size());
    bool hit;
    if (rule.kind == Rule::pip) hit = RE2::PartialMatch(input, re, &whole, &op, &a, &b);
    else hit = RE2::PartialMatch(input, re, &whole, &a, &b);
    if (!hit) return std::nullopt;
    TorchPin pin;
    pin.source = whole;
    const auto major = parse_bounded<int>(a, 0, 9999), minor = parse_bounded<int>(b, 0, 9999);
    if (!major || !minor) return std::nullopt;
    pin.major = *major;
    pin.minor = *minor;
    pin.lower_bound = rule.kind == Rule::pip && op == ">=";
    pin.version = std::to_string(pin.major) + "." + std::to_string(pin.minor);
    if (rule.kind == Rule::ngc) {
        // NGC YY.MM -> the PyTorch line it ships: 1.14.0a0 until 23.02, 2.0/2.1 pre-releases until 23.11,
        // 2.2.0a0 from 23.12 (NVIDIA's container release notes).
        const int yymm = pin.major * 100 + pin.minor;
        const std::string ngc = "NGC " + a + "." + b;
        if (yymm < 2303) { pin.major = 1; pin.minor = 14; pin.version = "1.x (" + ngc + ")"; }
        else if (yymm < 2312) { pin.major = 2; pin.minor = 0; pin.version = "2.0-2.1 (" + ngc + ")"; }
        else { pin.major = 2; pin.minor = 2; pin.version = "2.2+ (" + ngc + ")"; }
    }
    return pin;
}

}  // namespace

std::optional<TorchPin> find_torch_pin(std::string_view text) {
    for (std::size_t i = 0; i < std::size(kRules); ++i)
        if (auto pin = match_rule(i, text)) return pin;
    return std::nullopt;
}

TorchEra torch_era(const std::optional<TorchPin>& pin) {
    if (!pin) return TorchEra::unknown;
    const int v = pin->major * 100 + pin->minor;
    if (pin->lower_bound) return v >= 202 ? TorchEra::v2_2_or_later : TorchEra::unknown;
    if (v < 200) return TorchEra::before_2_0;
    if (v < 202) return TorchEra::v2_0_to_2_1;
    return TorchEra::v2_2_or_later;
}

}  // namespace denpex::server
