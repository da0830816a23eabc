// Reading JSON that a user wrote (configuration and attack files, --set
// values): nesting is bounded, so a hostile file cannot exhaust the stack, and
// a key given twice in one object is an error instead of last-wins.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ibsec {

// Deeper than any configuration needs; far below what recursion can take.
inline constexpr int kMaxJsonDepth = 32;

// Parses `text` (from `origin`, for messages). Throws ConfigError naming the
// origin: not valid JSON (with line and column), nested deeper than
// kMaxJsonDepth, or a key repeated within an object (naming its path).
nlohmann::json parse_user_json(const std::string& text, const std::string& origin);
// The same for a file, read within kMaxConfigFileBytes (core/bounded_input.h);
// ConfigError if it cannot be read.
nlohmann::json read_user_json_file(const std::string& path, const std::string& what);

}  // namespace ibsec
