// file: URIs <-> filesystem paths (RFC 8089 as editors write them), and the last path segment of any URI.
//
// Contract. `uri_to_path` accepts "file:///abs/path" and "file://localhost/abs/path", percent-decoded; any
// other scheme or authority, a relative path, or a decoded NUL yields nullopt. `path_to_uri` makes an absolute
// path (made absolute against the working directory when relative) into "file://" + the path, with every
// byte outside RFC 3986's unreserved set and "/" percent-encoded, so the result round-trips.
// `uri_basename` is the percent-decoded last segment ("slurm-42.out"), for choosing how to treat a document.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex::server {

std::optional<std::string> uri_to_path(std::string_view uri);
std::string path_to_uri(std::string_view path);
std::string uri_basename(std::string_view uri);
std::string percent_decode(std::string_view s);

}  // namespace denpex::server
