#include "server/handlers/evidence_locations.hpp"

#include <nlohmann/json.hpp>

namespace denpex::server {

namespace {

bool is_evidence(const nlohmann::json& v) {
    return v.is_object() && v.contains("file") && v.contains("line") && v["file"].is_string() &&
           v["line"].is_number_unsigned();
}

}  // namespace

void add_evidence_locations(nlohmann::json& v, const EvidenceResolver& resolve) {
    if (is_evidence(v)) {
        if (auto loc = resolve(v["file"].get<std::string>(), v["line"].get<std::uint64_t>())) {
            if (loc->uri.empty()) v["range"] = to_json(loc->range);
            else v["location"] = to_json(*loc);
        }
        return;
    }
    if (v.is_object() || v.is_array())
        for (auto& child : v) add_evidence_locations(child, resolve);
}

}  // namespace denpex::server
