#include "engine/version_statement.hpp"

#include <re2/re2.h>

namespace denpex {

std::optional<Version> stated_torch_version(std::string_view body) {
    body = body.substr(0, 1024);
    // Cheap gates first: every traceback frame under site-packages/torch/ mentions "torch", so the patterns
    // run only on lines that start like a statement or carry a pip pin.
    const bool statement_start = !body.empty() && (body.front() == 'P' || body.front() == 't');
    const bool pinned_here = body.find("torch==") != std::string_view::npos;
    if (!statement_start && !pinned_here) return std::nullopt;
    // A statement is the whole body (after the attribution prefixes), so prose that mentions a version ("fixed
    // in torch 2.2") is not taken for the running one; pip's `torch==` may stand among other requirements.
    static const RE2 whole(
        R"(^(?:PyTorch version: |torch version \.+ |torch\.__version__\s*[=:]\s*['"]?|torch\s+)(\d+)\.(\d+)\.\d+[+a-z0-9.]*['"]?\s*$)");
    static const RE2 pinned(R"((?:^|\s)torch==(\d+)\.(\d+)\b)");
    const re2::StringPiece text(body.data(), body.size());
    int major = 0, minor = 0;
    const bool found = (statement_start && RE2::FullMatch(text, whole, &major, &minor)) ||
                       (pinned_here && RE2::PartialMatch(text, pinned, &major, &minor));
    if (!found) return std::nullopt;
    if (major < 1 || major > 9 || minor > 99) return std::nullopt;
    return Version{major, minor};
}

}  // namespace denpex
