// The few LSP structures the server builds in more than one place, with their JSON mapping. Everything else
// (Diagnostic, Hover, CodeAction...) is built as JSON where it is produced: the shapes are small and each
// has one producer.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace denpex::server {

struct Position {
    std::uint32_t line = 0;
    std::uint32_t character = 0;
    auto operator<=>(const Position&) const = default;
};

struct Range {
    Position start, end;
    auto operator<=>(const Range&) const = default;
};

struct Location {
    std::string uri;
    Range range;
};

nlohmann::json to_json(const Position& p);
nlohmann::json to_json(const Range& r);
nlohmann::json to_json(const Location& l);

// JSON-RPC / LSP error codes.
namespace error_code {
constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int method_not_found = -32601;
constexpr int invalid_params = -32602;
constexpr int internal_error = -32603;
constexpr int server_not_initialized = -32002;
constexpr int unknown_error = -32001;
constexpr int request_failed = -32803;
constexpr int server_cancelled = -32802;
constexpr int content_modified = -32801;
constexpr int request_cancelled = -32800;
}  // namespace error_code

// Diagnostic severities.
namespace severity {
constexpr int error = 1;
constexpr int warning = 2;
constexpr int information = 3;
constexpr int hint = 4;
}  // namespace severity

}  // namespace denpex::server
