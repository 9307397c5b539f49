// RpcError: a JSON-RPC error a handler raises (or replies with) — code, message, optional data.
//
// Handlers throw it for request-level failures (bad params, unknown command); the dispatcher turns it into
// the reply's `error` object. Anything else a handler throws becomes InternalError (-32603).
#pragma once

#include <stdexcept>
#include <string>

namespace denpex::server {

class RpcError : public std::runtime_error {
public:
    RpcError(int code, std::string message) : std::runtime_error(message), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

}  // namespace denpex::server
