// The partial model's codec: the knowledge digest and signature index it is built with, and the magic test.
// Encoding and decoding are engine/partial_encode.cpp and engine/partial_decode.cpp.
#include "engine/partial_model.hpp"

#include <cstdint>
#include <cstdio>

namespace denpex {
namespace {

// FNV-1a, 64 bits: a digest to tell two knowledge bases apart, not a defence against forgery (a partial is the
// user's own file; decode checks every value anyway).
struct Fnv1a {
    std::uint64_t h = 1469598103934665603ull;
    void add(std::string_view s) {
        for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
        h = (h ^ 0xFFu) * 1099511628211ull;   // a separator no text holds, so "ab"+"c" differs from "a"+"bc"
    }
    void add(long long n) { add(std::to_string(n)); }
};

// What decides which lines become which events: a change in any of it changes what a partial holds.
std::string digest_of(const KnowledgeBase& kb) {
    Fnv1a f;
    f.add(kPartialVersion);
    for (const auto& entry : kb.entries()) {
        f.add(entry->id);
        for (const auto& r : entry->refines) f.add(r);
        f.add(static_cast<long long>(entry->signatures.size()));
        for (const Signature& sig : entry->signatures) {
            f.add(sig.id);
            f.add(static_cast<long long>(sig.role));
            f.add(sig.pattern);
            f.add(static_cast<long long>(sig.mark));
            f.add(sig.torch ? sig.torch->str() : "-");
            f.add(sig.launcher.value_or("-"));
            f.add(static_cast<long long>(sig.fallback) * 2 + static_cast<long long>(sig.on_warning_lines));
        }
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(f.h));
    return std::string("fnv1a64:") + hex;
}

}  // namespace

bool looks_like_partial(std::string_view first_bytes) { return first_bytes.starts_with(kPartialMagic); }

PartialCodec::PartialCodec(const KnowledgeBase& kb) : digest_(digest_of(kb)) {
    for (const auto& entry : kb.entries()) entries_.try_emplace(entry->id, entry.get());
}

}  // namespace denpex
